// The transport's guarantees against a node:http fake: one deadline covers the rate limiter,
// the socket wait and the answer; watches never take a socket of the request pool; the write
// fence refuses writes before they are sent and aborts the ones in flight; pool waits are reported.
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, it } from "node:test";
import { FakeApiServer, json } from "../../test/support/fake-api-server.js";
import type { KubeClient } from "./client.js";
import { createKubeClient, type KubeClientOptions } from "./create-client.js";
import { FencedError, isDeadlineExceeded, isFenced } from "./errors.js";
import { WriteFence } from "./write-fence.js";

let fake: FakeApiServer;
const clients: KubeClient[] = [];
const hung: ServerResponse[] = [];
const ns = { apiVersion: "v1", kind: "Namespace", name: "default" };
const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" } };

async function makeClient(extra: Partial<KubeClientOptions> = {}): Promise<KubeClient> {
  const client = await createKubeClient({
    connection: { source: "test", server: fake.url, namespace: "ns", insecureSkipTlsVerify: false },
    qps: 0,
    maxRetries: 0,
    ...extra,
  });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  fake = await FakeApiServer.start();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const res of hung.splice(0)) res.destroy();
  await fake.close();
});

/** How a call ended. No durations: a request the deadline (or the fence) fails to cut short never settles here, and the test's own timeout reports it. */
const outcome = async (fn: () => Promise<unknown>): Promise<{ error: unknown }> => {
  try {
    await fn();
    return { error: undefined };
  } catch (error) {
    return { error };
  }
};

/** Lets every promise continuation that is ready run (setImmediate is not among the faked timers). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Only a broken guarantee lets a test wait this long: it stands for "never", not for a speed. */
const HANG = { timeout: 20_000 };

describe("transport deadlines, pools and fence", () => {
  it("the deadline includes the rate limiter's wait", async (t) => {
    fake.onOther = (_req, res) => {
      json(res, 200, { kind: "Namespace", metadata: { name: "default" } });
    };
    const client = await makeClient({ qps: 1, burst: 1, requestTimeoutMs: 300 });
    await client.getPath("/version"); // takes the one token
    // Fake timers from here: the deadline (300 ms) and the limiter's wait for the next token (1 s)
    // are both setTimeout, and nothing else is in the way (the request is never sent).
    t.mock.timers.enable({ apis: ["setTimeout"] });
    let settled = false;
    const second = outcome(() => client.getPath("/version")).finally(() => {
      settled = true;
    });
    await settle();
    t.mock.timers.tick(299);
    await settle();
    assert.equal(settled, false, "not before the deadline");
    t.mock.timers.tick(1);
    await settle();
    assert.equal(settled, true, "ended at the deadline, while the limiter still waited for a token");
    const { error } = await second;
    assert.ok(isDeadlineExceeded(error), String(error));
    assert.match(String(error), /no answer within 300 ms \(rate limiter, socket wait and response included\)/);
    assert.equal(fake.requests.filter((r) => r.path === "/version").length, 1, "the second request was never sent");
    t.mock.timers.tick(1_000); // the limiter's wait ends: nothing is left pending
  });

  it("the deadline includes the wait for a socket, and a hung answer", HANG, async () => {
    fake.onOther = (_req, res) => {
      hung.push(res);
    };
    const client = await makeClient({ maxRequestSockets: 1 });
    await client.resourceFor("v1", "Namespace");
    // The first request holds the only socket with a hung answer and a later deadline. Both
    // deadlines start in the same tick, so the queued one must end first — while the socket it
    // waits for is still taken.
    let firstSettled = false;
    const first = outcome(() => client.get(ns, { timeoutMs: 2_000 })).finally(() => {
      firstSettled = true;
    });
    const second = await outcome(() => client.get(ns, { timeoutMs: 200 }));
    assert.ok(isDeadlineExceeded(second.error), String(second.error));
    assert.equal(firstSettled, false, "the queued request gave up at its own deadline, not when the socket was freed");
    // A hung answer: only its deadline ends it.
    const one = await first;
    assert.ok(isDeadlineExceeded(one.error), String(one.error));
    assert.equal(
      fake.requests.filter((r) => r.path === "/api/v1/namespaces/default").length,
      1,
      "the queued request never got a socket",
    );
  });

  it("watches use their own pool: a GET answers with more watches open than request sockets", HANG, async () => {
    fake.onWatch = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("");
      hung.push(res);
    };
    fake.onOther = (_req, res) => {
      json(res, 200, { kind: "Namespace", metadata: { name: "default" } });
    };
    const waits: string[] = [];
    const client = await makeClient({ maxRequestSockets: 1, metrics: { onPoolWait: (m) => waits.push(m.pool) } });
    const watches = await Promise.all([1, 2, 3].map(() => client.openWatch("v1", "ConfigMap", {})));
    // Were a watch holding the only request socket, this GET would end at its deadline.
    const { error } = await outcome(() => client.get(ns, { timeoutMs: 10_000 }));
    assert.equal(error, undefined);
    assert.deepEqual(client.poolStats().watch.sockets, 3);
    assert.ok(client.poolStats().request.sockets <= 1);
    assert.equal(waits.filter((p) => p === "watch").length, 3);
    assert.ok(waits.includes("request"));
    for (const w of watches) w.destroy();
  });

  it("a fence that is not held refuses writes before they are sent; reads go through", async () => {
    fake.onOther = (_req, res) => {
      json(res, 200, { kind: "ConfigMap", metadata: { name: "a" } });
    };
    const fence = new WriteFence();
    const client = await makeClient({ fence });
    await assert.rejects(
      client.apply(cm, { fieldManager: "t" }),
      (e: unknown) => e instanceof FencedError && /does not hold the lease/.test(e.message),
    );
    await client.get({ ...ns });
    assert.equal(fake.requests.filter((r) => r.method !== "GET").length, 0, "nothing was written");
    fence.holdUntil(performance.now() + 10_000);
    await client.apply(cm, { fieldManager: "t" });
    assert.equal(fake.requests.filter((r) => r.method === "PATCH").length, 1);
    assert.equal(fence.refused, 1);
  });

  it("a view withFence(shard) needs that fence too; the client it came from does not; closing it aborts the view's writes in flight", async () => {
    fake.onOther = (req, res) => {
      if (req.method === "PATCH" && req.path.includes("/hang")) hung.push(res);
      else json(res, 200, { kind: "ConfigMap", metadata: { name: "a" } });
    };
    const client = await makeClient();
    const shard = new WriteFence();
    const view = client.withFence(shard);
    await assert.rejects(view.apply(cm, { fieldManager: "t" }), (e: unknown) => e instanceof FencedError);
    await view.get({ ...ns });
    await client.apply(cm, { fieldManager: "t" });
    assert.equal(fake.requests.filter((r) => r.method === "PATCH").length, 1, "only the unfenced client wrote");
    shard.holdUntil(performance.now() + 10_000);
    await view.apply(cm, { fieldManager: "t" });
    const inFlight = view.apply({ ...cm, metadata: { ...cm.metadata, name: "hang" } }, { fieldManager: "t" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    shard.close("released the shard");
    await assert.rejects(inFlight, (e: unknown) => isFenced(e));
    await client.apply(cm, { fieldManager: "t" });
  });

  it("a write that waited for a socket while its fence lapsed is never sent (a paused process resumed)", async () => {
    // A SIGSTOP'd leader: its timers have not fired yet when it resumes, but its clock has moved
    // on. The write passed the fence before the pause, then queued for the only socket.
    fake.onOther = (req, res) => {
      if (req.method === "GET" && req.path.endsWith("/hold")) hung.push(res);
      else json(res, 200, { kind: "ConfigMap", metadata: { name: "a" } });
    };
    let now = 0;
    const fence = new WriteFence(() => now);
    fence.holdUntil(100);
    const client = await makeClient({ fence, maxRequestSockets: 1 });
    await client.resourceFor("v1", "ConfigMap");
    const holding = client.getPath("/api/v1/hold");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const write = client.apply(cm, { fieldManager: "t" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = 200; // past the hold; no close() has run
    const [held] = hung.splice(0);
    assert.ok(held !== undefined);
    json(held, 200, {});
    await holding;
    await assert.rejects(write, (e: unknown) => isFenced(e));
    assert.equal(
      fake.requests.filter((r) => r.method === "PATCH").length,
      0,
      "the queued write never reached the server",
    );
    assert.equal(fence.closed, true);
  });

  it("closing the fence aborts writes in flight, and a lapsed hold closes it for good", HANG, async () => {
    fake.onOther = (req, res) => {
      if (req.method === "PATCH") hung.push(res);
      else json(res, 200, {});
    };
    let now = 0;
    const fence = new WriteFence(() => now);
    fence.holdUntil(100);
    const client = await makeClient({ fence });
    // The answer hangs and the deadline is the default 60 s: only the fence can end this write.
    const write = outcome(() => client.apply(cm, { fieldManager: "t" }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    fence.close("lost the lease");
    const { error } = await write;
    assert.ok(isFenced(error), String(error));

    let t = 0;
    const lapsing = new WriteFence(() => t);
    lapsing.holdUntil(50);
    assert.equal(lapsing.open, true);
    t = 51;
    assert.throws(() => {
      lapsing.check("PATCH", "/x");
    }, /not renewed within the renew deadline/);
    lapsing.holdUntil(1_000);
    assert.equal(lapsing.open, false, "a fence never reopens");
    now = 0;
  });
});
