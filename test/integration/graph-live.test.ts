// `kro graph --instance NAME --namespace NS`: the picture coloured by the live state of an
// instance the real controller reconciled on the shared cluster, read by the CLI from outside.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";
import { exited, startCli } from "../support/cli-session.js";

const letters = letterSuffix();
const kind = `LiveGraph${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const rgdName = `live-graph-${letters}`;

// Every state at once, without depending on pods being scheduled: the ConfigMap is ready when it
// exists, the Deployment is paused (so it never becomes available: applied, waiting), the Service
// waits on it, and the Ingress is excluded.
const rgdYaml = (label: { key: string; value: string }): string => `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${label.key}: "${label.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      withIngress: boolean | default=false
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data: { greeting: hello }
    - id: deploy
      readyWhen:
        - \${deploy.status.?availableReplicas.orValue(0) > 0}
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: "\${config.metadata.name}" }
        spec:
          paused: true
          replicas: 1
          selector: { matchLabels: { app: "\${schema.metadata.name}" } }
          template:
            metadata: { labels: { app: "\${schema.metadata.name}" } }
            spec: { containers: [{ name: web, image: "nginx:1.27" }] }
    - id: svc
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${deploy.metadata.name}" }
        spec: { selector: { app: "\${schema.metadata.name}" }, ports: [{ port: 80 }] }
    - id: ing
      includeWhen:
        - \${schema.spec.withIngress}
      template:
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: { name: "\${schema.metadata.name}" }
        spec: { defaultBackend: { service: { name: "\${schema.metadata.name}", port: { number: 80 } } } }
`;

async function graph(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const session = startCli(["graph", ...args, "--kubeconfig", testCluster().kubeconfig]);
  const code = await exited(session.child);
  return { code, output: session.output() };
}

describe("kro graph --instance", { timeout: 120_000 }, () => {
  let tc: TestController;
  let dir: string;
  let rgdFile: string;
  before(async () => {
    tc = await startTestController();
    dir = await mkdtemp(path.join(tmpdir(), "kro-graph-live-"));
    rgdFile = path.join(dir, "rgd.yaml");
    await writeFile(rgdFile, rgdYaml(tc.label));
    await kubectl(["apply", "-f", rgdFile]);
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName])).status?.state,
          "Active",
        );
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("colours each node by the instance's live state", async (t) => {
    const ns = await testNamespace(t, "graph-live");
    await kubectl(
      ["apply", "-n", ns, "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: shop\n`,
    );
    await eventually(
      async () => {
        const o = await kubectlJson<{ status?: { state?: string; conditions?: { type: string; message?: string }[] } }>(
          ["get", kind.toLowerCase(), "shop", "-n", ns],
        );
        assert.equal(o.status?.state, "IN_PROGRESS", JSON.stringify(o.status));
        assert.match(o.status.conditions?.find((c) => c.type === "Ready")?.message ?? "", /"svc" waits for "deploy"/);
      },
      { timeout: 60_000 },
    );

    const text = await graph(["-f", rgdFile, "--instance", "shop", "--namespace", ns]);
    assert.equal(text.code, 0, text.output);
    assert.match(
      text.output,
      new RegExp(`^graph ${rgdName}: instance ${kind} \\(kro\\.run/v1alpha1\\) {2}\\{waiting\\}$`, "m"),
    );
    assert.match(text.output, /^ {2}config .*<- instance {2}\{ready\}$/m);
    assert.match(text.output, /^ {2}deploy .*<- config {2}\{waiting\}$/m, "applied, never available (paused)");
    assert.match(text.output, /^ {2}svc .*<- deploy {2}\{pending\}$/m, "waits on deploy");
    assert.match(text.output, /^ {2}ing .*<- instance \[conditional\] {2}\{excluded\}$/m, "includeWhen false");

    // DOT (and so SVG) carries the same states as fill colours.
    const dot = await graph(["-f", rgdFile, "--instance", "shop", "-n", ns, "--format", "dot"]);
    assert.equal(dot.code, 0, dot.output);
    assert.match(
      dot.output,
      /"config" \[label="config\\nConfigMap" shape=box style="rounded,filled" fillcolor="#c8e6c9"/,
    );
    assert.match(dot.output, /"deploy" \[.*fillcolor="#fff3c4"/);
    assert.match(dot.output, /"ing" \[.*fillcolor="#eeeeee"/);
  });

  it("names the instance it could not find", async (t) => {
    const ns = await testNamespace(t, "graph-live-missing");
    const result = await graph(["-f", rgdFile, "--instance", "nope", "-n", ns]);
    assert.equal(result.code, 1);
    assert.match(result.output, new RegExp(`kro: error: ${kind} ${ns}/nope not found on https://127\\.0\\.0\\.1:\\d+`));
  });
});
