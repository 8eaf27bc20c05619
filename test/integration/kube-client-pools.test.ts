/**
 * No request waits on a watch: with 120 informers open (each holding one HTTP/1.1 connection
 * for its watch, more than the 64 sockets of the request pool) a plain GET still answers at
 * once, and every watch has its own socket in the watch pool.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createKubeClient, type Informer } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { testCluster } from "../support/test-cluster.js";

const INFORMERS = 120;

describe("kube client connection pools", { timeout: 120_000 }, () => {
  it(`answers a GET promptly with ${INFORMERS} informers open`, async (t) => {
    const poolWaits: number[] = [];
    const client = await createKubeClient({
      kubeconfig: testCluster().kubeconfig, qps: 0,
      metrics: { onPoolWait: (m) => { if (m.pool === "request") poolWaits.push(m.waitMs); } },
    });
    const informers: Informer[] = [];
    t.after(async () => {
      await Promise.all(informers.map((i) => i.stop()));
      client.close();
    });
    const run = randomBytes(3).toString("hex");
    for (let i = 0; i < INFORMERS; i++) {
      // Distinct selectors: each is its own watch (the manager would share equal ones).
      informers.push(client.informer({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", labelSelector: `pool-test=${run}-${i}` }).start());
    }
    await Promise.all(informers.map((i) => i.waitForSync({ timeoutMs: 20_000 })));
    // Every informer has opened its watch (not only its list).
    await eventually(() => { assert.ok(informers.every((i) => i.stats.watches > 0)); });

    const timings: number[] = [];
    for (let n = 0; n < 5; n++) {
      const started = performance.now();
      await client.get({ apiVersion: "v1", kind: "Namespace", name: "default" }, { timeoutMs: 5_000 });
      timings.push(performance.now() - started);
    }
    const stats = client.poolStats();
    t.diagnostic(`GET with ${stats.watch.sockets} watches open: ${timings.map((ms) => ms.toFixed(1)).join(", ")} ms; request pool ${JSON.stringify(stats.request)}`);
    assert.ok(stats.watch.sockets >= INFORMERS, `one socket per watch: ${JSON.stringify(stats)}`);
    // Starvation shows as time waiting for a socket (asserted below) or a GET that runs into its
    // timeout; the total latency also carries the machine's load (over 1 s at load 25 on 2 cores),
    // so it is only bounded by what a starved GET would take.
    assert.ok(Math.max(...timings) < 4_000, `GET took ${timings.map((ms) => Math.round(ms)).join(", ")} ms with ${stats.watch.sockets} watches open`);
    assert.equal(stats.request.queued, 0, "no request queued for a socket");
    assert.ok(stats.request.sockets < 64, `watches stay out of the request pool (${stats.request.sockets} request sockets)`);
    assert.ok(poolWaits.length > 0 && Math.max(...poolWaits.slice(-5)) < 100, `pool wait of the GETs: ${poolWaits.slice(-5).map((ms) => ms.toFixed(1)).join(", ")} ms`);
  });
});
