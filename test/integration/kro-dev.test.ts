// `kro dev` on a user's own files: converge, then an edit that breaks the RGD is reported at
// file:line:column without exiting, and an edit that fixes it (and scales the instance) is
// re-applied and converges again. Starts its own full local cluster, like a user would.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import { exited, kubectlWith, processesMentioning, startCli } from "../support/cli-session.js";

const WEBAPP_RGD = fileURLToPath(new URL("../../../examples/webapp/webapp-rgd.yaml", import.meta.url));

const instance = (replicas: number): string => `apiVersion: kro.run/v1alpha1
kind: WebApp
metadata:
  name: mine
spec:
  replicas: ${replicas}
`;

const count = (text: string, pattern: RegExp): number => text.match(new RegExp(pattern.source, "gm"))?.length ?? 0;

describe("kro dev", { timeout: 240_000 }, () => {
  it("applies the files, reports a broken edit at file:line:col and keeps running, re-applies a fixed one", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-dev-test-"));
    await copyFile(WEBAPP_RGD, path.join(dir, "rgd.yaml"));
    await writeFile(path.join(dir, "app.yaml"), instance(1));
    const session = startCli(["dev", "-f", "rgd.yaml", "-i", "app.yaml"], { cwd: dir });
    try {
      await session.waitFor(/^kro-ts: all instances Ready$/m, 180_000);
      assert.match(session.output(), /^\[\d\d:\d\d\] webapp\/mine ing: skipped \(includeWhen is false\)$/m);
      assert.match(session.output(), /^\[\d\d:\d\d\] webapp\/mine: ACTIVE, Ready$/m);
      const kubeconfig = /^Ready\. kubeconfig: (\S+)$/m.exec(session.output())?.[1] ?? assert.fail(session.output());
      const stateDir = /^Component logs: (\S+)$/m.exec(session.output())?.[1] ?? assert.fail(session.output());
      assert.ok(existsSync(path.join(stateDir, "webapp.svg")), "graph written next to the kubeconfig");
      assert.match(session.output(), new RegExp(`^graph of webapp: ${stateDir}/webapp\\.svg$`, "m"));

      // Break it: replicas from a string field is a type error at a known line.
      const good = await readFile(path.join(dir, "rgd.yaml"), "utf8");
      const broken = good.replace("replicas: ${schema.spec.replicas}", "replicas: ${schema.spec.image}");
      assert.notEqual(broken, good);
      const line = broken.split("\n").findIndex((l) => l.includes("replicas: ${schema.spec.image}")) + 1;
      await writeFile(path.join(dir, "rgd.yaml"), broken);
      await session.waitFor(new RegExp(`^rgd\\.yaml:${line}:\\d+: error: spec\\.resources\\[0\\]\\.template\\.spec\\.replicas: .*"string".*"int"`, "m"), 30_000);
      assert.equal(session.child.exitCode, null, "kro dev keeps running after a compile error");

      // Fix it and scale the instance: both files are re-applied and the instance converges again.
      const readyLinesBefore = count(session.output(), /^kro-ts: all instances Ready$/);
      await writeFile(path.join(dir, "rgd.yaml"), good);
      await writeFile(path.join(dir, "app.yaml"), instance(3));
      await eventually(async () => {
        assert.equal(await kubectlWith(kubeconfig, ["get", "deployment", "mine", "-n", "default", "-o", "jsonpath={.status.availableReplicas}"]), "3");
      }, { timeout: 60_000 });
      await eventually(() => {
        const after = session.output().slice(session.output().lastIndexOf("changed:"));
        assert.ok(count(session.output(), /^kro-ts: all instances Ready$/) > readyLinesBefore, "a new ready line after the change");
        assert.match(after, /^kro-ts: all instances Ready$/m);
      }, { timeout: 30_000 });
      const rgd = JSON.parse(await kubectlWith(kubeconfig, ["get", "rgd", "webapp", "-o", "json"])) as { status?: { state?: string } };
      assert.equal(rgd.status?.state, "Active", "the fixed RGD is accepted again");

      session.child.kill("SIGINT");
      assert.equal(await exited(session.child), 0, session.output());
      assert.equal(existsSync(stateDir), false);
      await eventually(() => { assert.deepEqual(processesMentioning(stateDir), []); }, { timeout: 10_000 });
    } finally {
      session.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a file it cannot read before starting a cluster", async () => {
    const session = startCli(["dev", "-f", "/nonexistent/rgd.yaml"]);
    assert.equal(await exited(session.child), 1);
    assert.match(session.output(), /kro: error: cannot read \/nonexistent\/rgd\.yaml: ENOENT/);
    assert.doesNotMatch(session.output(), /local cluster/);
  });
});
