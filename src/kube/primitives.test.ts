// The small parts: jittered backoff, Retry-After parsing, the token bucket, the store's indexes
// and the watch line parser.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Backoff, parseRetryAfter } from "./backoff.js";
import { TokenBucket } from "./rate-limiter.js";
import { objectKey, relistDifference, Store } from "./store.js";
import type { KubeObject } from "./types.js";
import { parseWatchLine } from "./watch-stream.js";

describe("backoff", () => {
  it("grows exponentially to a cap, with jitter below the base delay, and resets", () => {
    const fixed = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    assert.deepEqual(
      Array.from({ length: 6 }, () => fixed.next()),
      [100, 200, 400, 800, 1000, 1000],
    );
    fixed.reset();
    assert.equal(fixed.next(), 100);
    const values = [0, 0.5, 0.999];
    const jittered = new Backoff({ initialMs: 100, jitter: 0.5, random: () => values.shift() ?? 0 });
    assert.deepEqual([jittered.next(), jittered.next(), jittered.next()], [100, 150, 200]);
  });

  it("parses Retry-After seconds and dates", () => {
    assert.equal(parseRetryAfter("3"), 3000);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(parseRetryAfter("soon"), undefined);
  });
});

describe("token bucket", () => {
  it("allows a burst, then paces to qps", async () => {
    // A burst of 3 at one token per 1000 s: only the burst lets these finish within the test's
    // timeout (no upper-bound timing assertion: those flake on a loaded machine).
    const slow = new TokenBucket({ qps: 0.001, burst: 3 });
    await Promise.all([slow.acquire(), slow.acquire(), slow.acquire()]);
    const bucket = new TokenBucket({ qps: 50, burst: 3 });
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => bucket.acquire()));
    assert.ok(performance.now() - started >= 50, "three more tokens at 50/s take ~60 ms");
    assert.equal(await new TokenBucket({ qps: 0, burst: 1 }).acquire(), 0);
  });
});

describe("store", () => {
  const pod = (ns: string, name: string, owner: string): KubeObject => ({
    metadata: { namespace: ns, name, ownerReferences: [{ uid: owner, apiVersion: "v1", kind: "X", name: "o" }] },
  });
  it("keeps indexes in step with upserts and removals", () => {
    const store = new Store({ owner: (o) => (o.metadata?.ownerReferences ?? []).map((r) => r.uid) });
    store.upsert(pod("a", "p1", "u1"));
    store.upsert(pod("a", "p2", "u1"));
    store.upsert(pod("b", "p1", "u2"));
    assert.deepEqual(store.byIndex("owner", "u1").map(objectKey).sort(), ["a/p1", "a/p2"]);
    store.upsert(pod("a", "p2", "u2"));
    assert.deepEqual(store.byIndex("owner", "u1").map(objectKey), ["a/p1"]);
    assert.deepEqual(store.byIndex("owner", "u2").map(objectKey).sort(), ["a/p2", "b/p1"]);
    store.remove("a/p1");
    assert.deepEqual(store.byIndex("owner", "u1"), []);
    assert.equal(store.size, 2);
    assert.equal(objectKey({ metadata: { name: "cluster-scoped" } }), "cluster-scoped");
    assert.throws(() => store.byIndex("nope", "x"), /no index/);
  });

  it("tells what a fresh list shows that an older cache may never have been told", () => {
    const at = (name: string, resourceVersion: string): KubeObject => ({
      metadata: { namespace: "a", name, resourceVersion },
    });
    const older = new Store();
    const newer = new Store();
    for (const object of [at("same", "1"), at("edited", "2"), at("deleted", "3")]) older.upsert(object);
    for (const object of [at("same", "1"), at("edited", "7"), at("created", "8")]) newer.upsert(object);
    const { changed, gone } = relistDifference(older, newer);
    assert.deepEqual(changed.map(objectKey).sort(), ["a/created", "a/edited"]);
    assert.deepEqual(gone.map(objectKey), ["a/deleted"]);
  });
});

describe("watch line parser", () => {
  it("accepts the five event types and rejects anything else", () => {
    assert.equal(parseWatchLine('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"1"}}}').type, "BOOKMARK");
    assert.throws(() => parseWatchLine('{"type":"ADDED"}'), /without an object/);
    assert.throws(() => parseWatchLine('{"type":"NEW","object":{}}'), /unknown watch event type/);
    assert.throws(() => parseWatchLine("{"), SyntaxError);
  });
});
