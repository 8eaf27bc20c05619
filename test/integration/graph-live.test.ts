// `kro graph --instance NAME --namespace NS`: the picture coloured by the live state of an
// instance the real controller reconciled on the shared cluster, read by the CLI from outside.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";
import { startTestController, type TestController } from "../support/controller.js";
import { exited, startCli } from "../support/cli-session.js";

const WEBAPP_RGD = fileURLToPath(new URL("../../../examples/webapp/webapp-rgd.yaml", import.meta.url));
const letters = randomBytes(3).toString("hex").replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)] ?? "x");
const kind = `LiveGraph${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const rgdName = `live-graph-${letters}`;

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
    // The bundled example under this test's own name, kind and controller label.
    const text = (await readFile(WEBAPP_RGD, "utf8"))
      .replace("  name: webapp\n", `  name: ${rgdName}\n  labels: { ${tc.label.key}: "${tc.label.value}" }\n`)
      .replace("    kind: WebApp\n", `    kind: ${kind}\n`);
    assert.ok(text.includes(`kind: ${kind}\n`) && text.includes(`name: ${rgdName}\n`), "the example was renamed");
    await writeFile(rgdFile, text);
    await kubectl(["apply", "-f", rgdFile]);
    await eventually(async () => {
      assert.equal((await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName])).status?.state, "Active");
    }, { timeout: 60_000 });
  });
  after(async () => {
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("colours each node by the instance's live state", async (t) => {
    const ns = await testNamespace(t, "graph-live");
    await kubectl(["apply", "-n", ns, "-f", "-"], `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: shop\nspec:\n  replicas: 1\n`);
    await eventually(async () => {
      const o = await kubectlJson<{ status?: { conditions?: { type: string; status: string }[] } }>(["get", kind.toLowerCase(), "shop", "-n", ns]);
      assert.equal(o.status?.conditions?.find((c) => c.type === "Ready")?.status, "True", JSON.stringify(o.status));
    }, { timeout: 60_000 });

    const text = await graph(["-f", rgdFile, "--instance", "shop", "--namespace", ns]);
    assert.equal(text.code, 0, text.output);
    assert.match(text.output, new RegExp(`^graph ${rgdName}: instance ${kind} \\(kro\\.run/v1alpha1\\)  \\{ready\\}$`, "m"));
    assert.match(text.output, /^ {2}deploy .*<- instance {2}\{ready\}$/m);
    assert.match(text.output, /^ {2}svc .*<- deploy {2}\{ready\}$/m);
    assert.match(text.output, /^ {2}ing .*<- svc \[conditional\] {2}\{excluded\}$/m, "ingress disabled: excluded");

    // DOT (and so SVG) carries the same states as fill colours.
    const dot = await graph(["-f", rgdFile, "--instance", "shop", "-n", ns, "--format", "dot"]);
    assert.equal(dot.code, 0, dot.output);
    assert.match(dot.output, /"deploy" \[label="deploy\\nDeployment" shape=box style="rounded,filled" fillcolor="#c8e6c9"/);
    assert.match(dot.output, /"ing" \[.*fillcolor="#eeeeee"/);
  });

  it("names the instance it could not find", async (t) => {
    const ns = await testNamespace(t, "graph-live-missing");
    const result = await graph(["-f", rgdFile, "--instance", "nope", "-n", ns]);
    assert.equal(result.code, 1);
    assert.match(result.output, new RegExp(`kro: error: ${kind} ${ns}/nope not found on https://127\\.0\\.0\\.1:\\d+`));
  });
});
