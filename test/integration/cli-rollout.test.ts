// `kro rollout` against the real API server: the pause annotation, the verdicts of status.rollout
// written as the controller reads them, and the refusals a person gets when there is nothing to
// steer. No controller runs here: what these commands write is what it acts on.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { installControllerCrds } from "../../src/controller/crds/index.js";
import { createKubeClient, type KubeObject } from "../../src/kube/index.js";

const CLI = path.join(fileURLToPath(new URL("../../../", import.meta.url)), "dist/src/cli/main.js");
const NAME = "rollout-cli-webapp";
const PAUSED = "kro.run/rollout-paused";

const RGD = (rollout: string) => `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${NAME}
spec:
  schema:
    apiVersion: v1alpha1
    kind: RolloutCliWebApp
    spec:
      name: string
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: \${schema.spec.name}
${rollout}`;

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, "--kubeconfig", testCluster().kubeconfig], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

const rgd = () => kubectlJson<KubeObject & { status?: { rollout?: Record<string, unknown> } }>(["get", "rgd", NAME]);

describe("kro rollout", () => {
  before(async () => {
    const client = await createKubeClient({ kubeconfig: testCluster().kubeconfig });
    try {
      await installControllerCrds(client);
    } finally {
      client.close();
    }
    await kubectl(["apply", "-f", "-"], RGD("  rollout:\n    waves:\n      - name: canary\n        percent: 10\n"));
  });
  after(async () => {
    await kubectl(["delete", "rgd", NAME, "rgd-without-rollout", "--ignore-not-found", "--wait=false"]);
  });

  it("pauses with an annotation, and status says so before the controller reports anything", async () => {
    const paused = await kro(["rollout", "pause", NAME]);
    assert.equal(paused.code, 0, paused.stderr);
    assert.equal((await rgd()).metadata?.annotations?.[PAUSED], "true");
    const status = await kro(["rollout", "status", NAME]);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(
      status.stdout,
      `${NAME}: no rollout reported yet (is the controller running?)\n  paused: nothing moves until \`kro rollout resume\`\n`,
    );
  });

  it("refuses an undo with nothing to undo, and writes nothing", async () => {
    const before = await rgd();
    const undo = await kro(["rollout", "undo", NAME]);
    assert.equal(undo.code, 1);
    assert.equal(
      undo.stderr,
      `kro: error: ${NAME} reports no rollout target yet (status.rollout.target): nothing to undo\n`,
    );
    assert.equal((await rgd()).metadata?.resourceVersion, before.metadata?.resourceVersion);
  });

  it("undo rejects the target in status.rollout, which the API server keeps", async () => {
    // What the controller writes while revision 3 is rolling out and its gate failed.
    await kubectl([
      "patch",
      "rgd",
      NAME,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({
        status: { rollout: { target: 3, halted: { revision: 3, wave: 0, at: "2026-12-07T00:00:00Z" } } },
      }),
    ]);
    const undo = await kro(["rollout", "undo", NAME, "--to-revision", "1"]);
    assert.equal(undo.code, 0, undo.stderr);
    const rejected = (await rgd()).status?.rollout?.rejected as { revision: number; by: string }[];
    assert.deepEqual(
      rejected.map((r) => [r.revision, r.by]),
      [
        [2, "command"],
        [3, "command"],
      ],
    );
  });

  it("resume lifts the pause and clears the halt, keeping the rejections unless --retry", async () => {
    const resumed = await kro(["rollout", "resume", NAME]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const after = await rgd();
    assert.equal(after.metadata?.annotations?.[PAUSED], undefined);
    assert.equal(after.status?.rollout?.halted, undefined);
    assert.match(String(after.status?.rollout?.resumedAt), /^\d{4}-\d\d-\d\dT/);
    assert.equal((after.status?.rollout?.rejected as unknown[]).length, 2);
    const again = await kro(["rollout", "resume", NAME]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /neither paused nor halted: nothing to resume/);
    const retried = await kro(["rollout", "resume", NAME, "--retry"]);
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal((await rgd()).status?.rollout?.rejected, undefined);
  });

  it("says an RGD without spec.rollout has nothing to steer, and a missing RGD that it is missing", async () => {
    await kubectl(["apply", "-f", "-"], RGD("").replace(NAME, "rgd-without-rollout"));
    const status = await kro(["rollout", "status", "rgd-without-rollout"]);
    assert.equal(
      status.stdout,
      "rgd-without-rollout: no spec.rollout — every instance takes a new revision at once (as in kro)\n",
    );
    const pause = await kro(["rollout", "pause", "rgd-without-rollout"]);
    assert.equal(pause.code, 1);
    assert.match(pause.stderr, /has no spec\.rollout/);
    const missing = await kro(["rollout", "status", "no-such-rgd"]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'kro: error: ResourceGraphDefinition "no-such-rgd" not found\n');
  });
});
