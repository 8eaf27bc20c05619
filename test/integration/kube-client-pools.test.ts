/**
 * No request waits on a watch: with 120 informers open (each holding one HTTP/1.1 connection
 * for its watch, more than the 64 sockets of the request pool) a plain GET still gets a socket
 * without queueing for one, and every watch has its own socket in the watch pool.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createKubeClient, type Informer } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { testCluster } from "../support/test-cluster.js";

const INFORMERS = 120;

describe("kube client connection pools", { timeout: 120_000 }, () => {
  it(`answers a GET with ${INFORMERS} informers open, without queueing for a socket`, async (t) => {
    const poolWaits: number[] = [];
    const client = await createKubeClient({
      kubeconfig: testCluster().kubeconfig,
      qps: 0,
      metrics: {
        onPoolWait: (m) => {
          if (m.pool === "request") poolWaits.push(m.waitMs);
        },
      },
    });
    const informers: Informer[] = [];
    t.after(async () => {
      await Promise.all(informers.map((i) => i.stop()));
      client.close();
    });
    const run = randomBytes(3).toString("hex");
    for (let i = 0; i < INFORMERS; i++) {
      // Distinct selectors: each is its own watch (the manager would share equal ones).
      informers.push(
        client
          .informer({
            apiVersion: "v1",
            kind: "ConfigMap",
            namespace: "default",
            labelSelector: `pool-test=${run}-${i}`,
          })
          .start(),
      );
    }
    await Promise.all(informers.map((i) => i.waitForSync({ timeoutMs: 20_000 })));
    // Every informer has opened its watch (not only its list).
    await eventually(() => {
      assert.ok(informers.every((i) => i.stats.watches > 0));
    });

    // Were the watches in the request pool, every socket would be taken by a watch that never
    // ends: these GETs would queue until their deadline and fail. The deadline is generous so
    // that only starvation, not a loaded machine, can reach it.
    const timings: number[] = [];
    for (let n = 0; n < 5; n++) {
      const started = performance.now();
      await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" }, { timeoutMs: 30_000 });
      timings.push(performance.now() - started);
      assert.equal(client.poolStats().request.queued, 0, "no request queued for a socket");
    }
    const stats = client.poolStats();
    t.diagnostic(
      `GET with ${stats.watch.sockets} watches open: ${timings.map((ms) => ms.toFixed(1)).join(", ")} ms (pool waits ${poolWaits
        .slice(-5)
        .map((ms) => ms.toFixed(1))
        .join(", ")} ms); request pool ${JSON.stringify(stats.request)}`,
    );
    assert.ok(stats.watch.sockets >= INFORMERS, `one socket per watch: ${JSON.stringify(stats)}`);
    // Latencies are shown above, not asserted: they carry the machine's load.
    assert.ok(
      stats.request.sockets < 64,
      `watches stay out of the request pool (${stats.request.sockets} request sockets)`,
    );
    assert.ok(poolWaits.length > 0, "the GETs went through the request pool");
  });
});
