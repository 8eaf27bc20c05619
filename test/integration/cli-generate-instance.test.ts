// `kro generate instance`: the sample it prints is accepted by the real API server (strict field
// validation, the generated CRD's schema) and converges to Ready under the real controller.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { runKro } from "../support/cli-session.js";

const letters = letterSuffix();
const kind = `Sample${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const rgdName = `sample-${letters}`;

// Required fields of every flavour the sample must satisfy; the children read them, so a
// placeholder the graph cannot use would keep the instance from Ready.
const rgdSpec = `
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      appName: string | required=true pattern="^[a-z][a-z0-9-]*$" maxLength=30
      tier: string | required=true enum="gold,silver"
      replicas: integer | required=true minimum=1 maximum=3
      owner: string | required=true minLength=8
      ports: "[]Port | required=true minItems=1"
      image: string | default="nginx:1.27"
      debug: boolean
    types:
      Port:
        port: integer | required=true minimum=1 maximum=65535
        protocol: string | default="TCP" enum="TCP,UDP"
    status:
      tier: \${config.data.tier}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.spec.appName}" }
        data:
          tier: \${schema.spec.tier}
          owner: \${schema.spec.owner}
          port: \${string(schema.spec.ports[0].port)}
    - id: svc
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${config.metadata.name}" }
        spec:
          selector: { app: "\${schema.spec.appName}" }
          ports:
            - port: \${schema.spec.ports[0].port}
              protocol: \${schema.spec.ports[0].protocol}
`;

describe("kro generate instance on a cluster", { timeout: 180_000 }, () => {
  let tc: TestController;
  let dir: string;
  let rgdFile: string;
  before(async () => {
    tc = await startTestController();
    dir = await mkdtemp(path.join(tmpdir(), "kro-generate-instance-"));
    rgdFile = path.join(dir, "rgd.yaml");
    await writeFile(rgdFile, `${rgdHeader(tc, rgdName)}${rgdSpec}`);
    await kubectl(["apply", "-f", rgdFile]);
    await waitRgdActive(rgdName);
  });
  after(async () => {
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
    await rm(dir, { recursive: true, force: true });
  });

  for (const variant of [[], ["--all"]] as const) {
    it(`prints a sample the API server accepts and the controller makes Ready${variant.length > 0 ? " (--all)" : ""}`, async (t) => {
      const ns = await testNamespace(t, "gen-instance");
      const { stdout, stderr } = await runKro(["generate", "instance", "-f", rgdFile, "-n", ns, ...variant]);
      assert.equal(stderr, "", "no placeholder is left that the schema refuses");
      assert.match(stdout, /# string, required, one of: gold, silver\n {2}tier: gold\n/);
      await kubectl(["apply", "--validate=strict", "-f", "-"], stdout);
      const name = `${kind.toLowerCase()}-sample`;
      await eventually(
        async () => {
          const o = await kubectlJson<{ status?: { tier?: string; conditions?: { type: string; status: string }[] } }>([
            "get",
            kind.toLowerCase(),
            name,
            "-n",
            ns,
          ]);
          assert.equal(o.status?.conditions?.find((c) => c.type === "Ready")?.status, "True", JSON.stringify(o.status));
          assert.equal(o.status.tier, "gold");
        },
        { timeout: 60_000 },
      );
      const svc = await kubectlJson<{ spec: { ports: { port: number; protocol: string }[] } }>([
        "get",
        "service",
        "app-name",
        "-n",
        ns,
      ]);
      assert.deepEqual(
        svc.spec.ports.map((p) => [p.port, p.protocol]),
        [[1, "TCP"]],
      );
    });
  }
});
