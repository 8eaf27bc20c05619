/**
 * Split brain from a paused leader, on the real API server: a leader process with writes in
 * flight (several writers on one socket, so some always wait for it) is stopped with SIGSTOP past
 * its Lease; a standby takes over and writes; the old leader is resumed with SIGCONT. Its timers
 * have not fired yet when it resumes and its queued writes get a socket at once — none of them
 * may land. Ground truth is the API server's own order of events on the objects (a watch): after
 * the new leader's first write to an object, no write of the old leader's follows — except the one
 * write a pause can catch between its last fence check and its bytes reaching the kernel (no
 * client-side fence can take back a write it has begun to send; the socket is one, so at most
 * one such write, and it must be the last the fence let through before the pause). Three rounds.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createKubeClient, type KubeClient, type KubeObject } from "../../src/index.js";
import { startLeaderElection } from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";

const BUSY_LEADER = fileURLToPath(new URL("../support/busy-leader.js", import.meta.url));
// The fence stops writes at the renew deadline; the standby acquires at the lease's end. The gap
// between them must cover how long the API server may take to apply a write it already received
// (a fence on the client cannot reach into the server's queue): 0.5 s was not enough on a loaded
// CI machine (a write sent before the deadline landed after the standby's), nor was
// 1.5 s once (a CI run, the whole suite beside it); 3 s is what this test allows a write in
// the server. The defaults leave 5 s.
const timing = { leaseDurationMs: 4500, renewDeadlineMs: 1500, retryPeriodMs: 200 } as const;
const WRITERS = 6;
const ROUNDS = 3;
const suffix = letterSuffix();
const namespace = `pause-${suffix}`;
const logger = createLogger({ level: "silent", name: "pause-test", format: "text" });

interface Seen {
  readonly name: string;
  readonly writer: string;
  readonly rv: number;
  readonly seq: string;
}
interface LostReport {
  readonly landed: number;
  readonly refused: number;
  readonly failed: string[];
  /** The last write the fence let through. */
  readonly lastPassed?: { readonly name: string; readonly seq: string; readonly wallMs: number };
}

describe("a paused leader resumed after losing its Lease", { timeout: 180_000 }, () => {
  let client: KubeClient;
  before(async () => {
    client = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    client.close();
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  for (let round = 0; round < ROUNDS; round++) {
    it(`sends no write that lands after the standby took over (round ${round + 1})`, async (t) => {
      const prefix = `work-${round}`;
      const lease = `pause-${suffix}-${round}`;
      // The API server's order of writes on our objects, as it reports them.
      const seen: Seen[] = [];
      const informer = client.informers.acquire({
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace,
        labelSelector: `kro-ts.test/busy-leader=${prefix}`,
      });
      t.after(async () => {
        await informer.release();
      });
      const note = (o: KubeObject) => {
        seen.push({
          name: o.metadata?.name ?? "",
          writer: (o as { data?: Record<string, string> }).data?.writer ?? "",
          rv: Number(o.metadata?.resourceVersion),
          seq: (o as { data?: Record<string, string> }).data?.seq ?? "",
        });
      };
      informer.informer.addHandlers({
        onAdd: note,
        onUpdate: (_old, next) => {
          note(next);
        },
      });
      await informer.informer.waitForSync({ timeoutMs: 10_000 });

      const child = spawn(
        process.execPath,
        [
          BUSY_LEADER,
          testCluster().kubeconfig,
          namespace,
          lease,
          "old",
          prefix,
          String(WRITERS),
          String(timing.leaseDurationMs),
          String(timing.renewDeadlineMs),
          String(timing.retryPeriodMs),
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<void>((resolve) =>
        child.once("exit", () => {
          resolve();
        }),
      );
      t.after(async () => {
        if (child.exitCode === null) {
          child.kill("SIGKILL");
          await exited;
        }
      });
      const lines = createInterface({ input: child.stdout });
      const reports = new Map<string, Record<string, unknown>>();
      lines.on("line", (line) => {
        const r = JSON.parse(line) as { event: string };
        reports.set(r.event, r);
      });
      await eventually(
        () => {
          assert.ok(reports.has("acquired"), stderr);
        },
        { timeout: 30_000 },
      );
      await eventually(
        () => {
          assert.ok(seen.filter((s) => s.writer === "old").length >= 20, "the old leader is busy writing");
        },
        { timeout: 30_000 },
      );

      child.kill("SIGSTOP");
      const standby = startLeaderElection({ client, logger, namespace, name: lease, identity: "new", ...timing });
      t.after(async () => {
        await standby.stop();
      });
      await standby.acquired;
      // The new leader writes every object; then the old one wakes up.
      await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          client.apply(
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: `${prefix}-${i}`, namespace },
              data: { writer: "new", seq: "0" },
            },
            { fieldManager: "new", force: true },
          ),
        ),
      );
      const resumedAt = Date.now();
      child.kill("SIGCONT");
      await eventually(
        () => {
          assert.ok(reports.has("lost"), stderr);
        },
        { timeout: 30_000 },
      );
      await exited;
      const lost = reports.get("lost") as unknown as LostReport;
      await eventually(() => {
        assert.equal(seen.filter((s) => s.writer === "new").length, WRITERS);
      });

      const afterTakeover: Seen[] = [];
      for (let i = 0; i < WRITERS; i++) {
        const events = seen.filter((s) => s.name === `${prefix}-${i}`).sort((a, b) => a.rv - b.rv);
        const firstNew = events.findIndex((s) => s.writer === "new");
        afterTakeover.push(...events.slice(firstNew).filter((s) => s.writer === "old"));
      }
      const caught = lost.lastPassed;
      assert.ok(
        caught !== undefined && caught.wallMs < resumedAt,
        `no write passed the fence after the resume: ${JSON.stringify(caught)}`,
      );
      const late = afterTakeover.filter((s) => !(s.name === caught.name && s.seq === caught.seq));
      assert.deepEqual(
        late,
        [],
        `writes of the old leader the API server applied after the new leader's, other than the one the pause caught on its way out (${JSON.stringify(caught)})`,
      );
      assert.ok(
        lost.refused > 0,
        `the resumed leader had writes waiting and they were refused (${JSON.stringify(lost)})`,
      );
      assert.deepEqual(lost.failed, []);
    });
  }
});
