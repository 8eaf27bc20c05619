/**
 * An instance whose evaluation kills the controller process cannot put it in a
 * crash loop. `kro controller` runs, with its default guard, as a real process under a supervisor
 * that restarts it as a Deployment would. The poisoned instance runs its main heap out of memory
 * for real (V8's fatal error and the report Node leaves) — through the test-only hook
 * KRO_TEST_CRASH_ON, read once by the CLI at start and not settable through instance data: every
 * known way to do that from an instance is now bounded (see the hostile-tenant suite). After 3
 * restarts the controller stays up, the instance says EvaluationCrashed and why, instances created
 * before and after converge, a clean stop leaves no instance marked in flight without a status for
 * that generation, and a new generation of the instance is evaluated again.
 *
 * And the other side: a controller killed (SIGKILL, KRO_TEST_KILL_ON) while the same instance is
 * in flight, again and again, never blames it — a kill -9, a drain or the kernel's OOM killer says
 * nothing about what was being evaluated.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const id = randomBytes(3).toString("hex");
const kind = `Crash${id.replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)] ?? "x")}App`;
const plural = `${kind.toLowerCase()}s`;
const ns = `crash-${id}`;
/** The default of --evaluation-crash-limit, which the controller runs with here. */
const LIMIT = 3;
const reportDir = mkdtempSync(path.join(tmpdir(), "kro-crash-loop-"));

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Instance {
  metadata: { generation: number; annotations?: Record<string, string> };
  status?: { state?: string; observedGeneration?: number; conditions?: Condition[] };
}

/** The controller as a Deployment keeps it: restarted whenever it dies, until we stop it. */
class Supervisor {
  restarts = 0;
  private child: ChildProcess | undefined;
  private stopping = false;
  log = "";
  private startedAt = 0;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  start(): void {
    this.startedAt = Date.now();
    // A small heap, so that running it out of memory takes a moment, not gigabytes.
    const child = spawn(
      process.execPath,
      [
        "--max-old-space-size=160",
        cli,
        "controller",
        "--kubeconfig",
        testCluster().kubeconfig,
        "--health-probe-bind-address",
        "0",
        "--metrics-bind-address",
        "0",
        "--log-format",
        "text",
        "--rgd-selector",
        `kro-ts.test/controller=crash-${id}`,
        "--crash-report-dir",
        reportDir,
        "--evaluation-crash-backoff",
        "1s",
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: this.env },
    );
    const collect = (chunk: Buffer) => {
      this.log += chunk.toString();
      if (process.env.KRO_TEST_LOG_FILE !== undefined) appendFileSync(process.env.KRO_TEST_LOG_FILE, chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code, signal) => {
      this.log += `\n--- exited (code ${String(code)}, signal ${String(signal)}) ---\n`;
      if (this.stopping) return;
      this.restarts++;
      // As kubelet's CrashLoopBackOff, shortened.
      setTimeout(() => {
        if (!this.stopping) this.start();
      }, 300);
    });
    this.child = child;
  }

  /** How long the current process has been running. */
  upForMs(): number {
    return this.child?.exitCode === null && this.child.signalCode === null ? Date.now() - this.startedAt : 0;
  }

  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.stopping = true;
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null)
      return { code: child?.exitCode ?? null, signal: child?.signalCode ?? null };
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => {
        resolve({ code, signal });
      }),
    );
    child.kill("SIGTERM");
    const killer = setTimeout(() => {
      child.kill("SIGKILL");
    }, 20_000);
    const result = await exited;
    clearTimeout(killer);
    return result;
  }
}

async function instance(name: string): Promise<Instance> {
  return kubectlJson<Instance>(["get", plural, name, "-n", ns]);
}

function ready(i: Instance): Condition | undefined {
  return i.status?.conditions?.find((c) => c.type === "Ready");
}

async function createInstance(name: string, value: string): Promise<void> {
  await kubectl(
    ["apply", "-f", "-"],
    `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${ns} }\nspec: { v: "${value}" }\n`,
  );
}

async function expectConverged(name: string, value: string): Promise<void> {
  await eventually(
    async () => {
      assert.equal(ready(await instance(name))?.status, "True", name);
      const cm = await kubectlJson<{ data: { v: string } }>(["get", "configmap", name, "-n", ns]);
      assert.equal(cm.data.v, value);
    },
    { timeout: 60_000 },
  );
}

describe("a crash loop caused by one instance", { timeout: 240_000 }, () => {
  let supervisor: Supervisor | undefined;
  after(async () => {
    await supervisor?.stop();
    await kubectl(["delete", "rgd", `crash-${id}`, "--ignore-not-found", "--wait=false"]);
    await kubectl(["delete", "namespace", ns, "--ignore-not-found", "--wait=false"]);
    rmSync(reportDir, { recursive: true, force: true });
  });

  it("is impossible: after at most the limit of restarts the controller stays up and names the instance", async (t) => {
    await kubectl(["create", "namespace", ns]);
    supervisor = new Supervisor({ ...process.env, KRO_TEST_CRASH_ON: "poison" });
    supervisor.start();
    const first = supervisor;
    // It installs the RGD CRD before it says so.
    await eventually(
      () => {
        assert.match(first.log, /controller started/);
      },
      { timeout: 60_000 },
    );
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: crash-${id}, labels: { kro-ts.test/controller: "crash-${id}" } }
spec:
  schema: { apiVersion: v1alpha1, kind: ${kind}, spec: { v: string } }
  resources:
    - id: cm
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}" }, data: { v: "\${schema.spec.v}" } }
`,
    );
    const s = supervisor;
    try {
      await eventually(
        async () => {
          assert.equal(
            (await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", `crash-${id}`])).status?.state,
            "Active",
          );
        },
        { timeout: 60_000 },
      );
      await createInstance("before", "b");
      await expectConverged("before", "b");
      assert.equal(s.restarts, 0);

      await createInstance("poison", "p");
      await eventually(
        () => {
          assert.ok(s.restarts >= 1, "the poisoned instance kills the controller");
        },
        { timeout: 60_000 },
      );
      await createInstance("after", "a");

      const crashed = await eventually(
        async () => {
          const c = ready(await instance("poison"));
          assert.equal(c?.reason, "EvaluationCrashed", JSON.stringify(c));
          return c;
        },
        { timeout: 120_000 },
      );
      assert.equal(crashed.status, "False");
      assert.match(
        crashed.message ?? "",
        new RegExp(
          `died ${LIMIT} times while evaluating generation 1 of this instance \\(last: Allocation failed - JavaScript heap out of memory\\); it is not evaluated again until its spec changes`,
        ),
      );
      assert.equal((await instance("poison")).status?.state, "ERROR");
      assert.equal(s.restarts, LIMIT, "exactly one restart per counted crash, no more");
      await expectConverged("before", "b");
      await expectConverged("after", "a");
      // And it stays up: the poisoned instance is no longer evaluated, whatever wakes it.
      await kubectl(["annotate", plural, "poison", "-n", ns, "kro-ts.test/poke=1"]);
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      assert.equal(s.restarts, LIMIT, "no crash after the instance was reported");
      assert.ok(s.upForMs() > 4_000, "the same process is still running");

      const stopped = await s.stop();
      assert.equal(stopped.code, 0, "a clean stop");
      // What the instances remember: each was marked before its evaluation; a status for that
      // generation says it came through — for all but the culprit, whose crashes are counted on it.
      for (const name of ["before", "after"]) {
        const i = await instance(name);
        assert.match(i.metadata.annotations?.["internal.kro.run/evaluating"] ?? "", /^1\/[0-9a-f]{12}$/, name);
        assert.equal(i.status?.observedGeneration, 1, `${name}: not left in flight by the clean stop`);
        assert.equal(
          i.metadata.annotations?.["internal.kro.run/evaluation-crashes"],
          undefined,
          `${name} was never blamed`,
        );
      }
      const poison = await instance("poison");
      assert.match(poison.metadata.annotations?.["internal.kro.run/evaluating"] ?? "", /^1\/[0-9a-f]{12}$/);
      assert.match(
        poison.metadata.annotations?.["internal.kro.run/evaluation-crashes"] ?? "",
        new RegExp(`^1:${LIMIT}:[0-9a-f]{12}$`),
        "each crash counted once, naming the process it counted last",
      );

      // Without the hook, the same generation is still not evaluated (the record is the memory);
      // a new generation is, and converges.
      supervisor = new Supervisor({ ...process.env, KRO_TEST_CRASH_ON: "" });
      supervisor.start();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.equal(ready(await instance("poison"))?.reason, "EvaluationCrashed");
      await createInstance("poison", "fixed");
      await expectConverged("poison", "fixed");
      assert.equal(supervisor.restarts, 0);
    } catch (error) {
      t.diagnostic(s.log.slice(-20_000));
      if (supervisor !== s) t.diagnostic(supervisor.log.slice(-10_000));
      throw error;
    }
  });

  it("never blames an instance for kills: killed in its evaluation again and again, it is retried, never stopped", async (t) => {
    await supervisor?.stop();
    const s = new Supervisor({ ...process.env, KRO_TEST_KILL_ON: "victim", KRO_TEST_CRASH_ON: "" });
    supervisor = s;
    s.start();
    try {
      await createInstance("victim", "v");
      const kills = LIMIT + 2;
      await eventually(
        () => {
          assert.ok(s.restarts >= kills, `${s.restarts} kills so far`);
        },
        { timeout: 120_000 },
      );
      const victim = await instance("victim");
      assert.notEqual(ready(victim)?.reason, "EvaluationCrashed", JSON.stringify(ready(victim)));
      assert.equal(
        victim.metadata.annotations?.["internal.kro.run/evaluation-crashes"],
        undefined,
        "no kill was counted",
      );
      assert.match(
        victim.metadata.annotations?.["internal.kro.run/evaluating"] ?? "",
        /^1\/[0-9a-f]{12}$/,
        "in flight, marked by the process that was killed",
      );
      await s.stop();
      // Each kill was a retry of the instance alone, after the backoff: without the hook it converges.
      supervisor = new Supervisor({ ...process.env, KRO_TEST_CRASH_ON: "" });
      supervisor.start();
      await expectConverged("victim", "v");
      assert.equal(supervisor.restarts, 0);
    } catch (error) {
      t.diagnostic(s.log.slice(-20_000));
      throw error;
    }
  });
});
