import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApplyMemo, asStored } from "./apply-memo.js";
import type { KubeJson } from "../../runtime/index.js";

const secret = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "s", namespace: "ns" },
  stringData: { token: "héllo" },
  data: { other: "b3RoZXI=" },
};
const liveSecret = {
  apiVersion: "v1",
  kind: "Secret",
  type: "Opaque",
  metadata: { name: "s", namespace: "ns", uid: "u1", resourceVersion: "7" },
  data: { token: Buffer.from("héllo").toString("base64"), other: "b3RoZXI=" },
};

describe("ApplyMemo", () => {
  it("sees a Secret written through stringData as up to date once the server stored it base64-encoded under data", () => {
    // Secrets have no metadata.generation, so without this only the memo path exists and it needs one.
    assert.equal(new ApplyMemo().upToDate(secret, liveSecret), true);
  });

  it("still sees a changed Secret value as stale", () => {
    assert.equal(new ApplyMemo().upToDate({ ...secret, stringData: { token: "changed" } }, liveSecret), false);
    assert.equal(new ApplyMemo().upToDate({ ...secret, data: { other: "Y2hhbmdlZA==" } }, liveSecret), false);
  });

  it("lets stringData win over data for the same key and leaves other kinds alone", () => {
    assert.deepEqual(asStored({ apiVersion: "v1", kind: "Secret", data: { k: "b2xk" }, stringData: { k: "new" } }), {
      apiVersion: "v1",
      kind: "Secret",
      data: { k: "bmV3" },
    });
    const configMap = { apiVersion: "v1", kind: "ConfigMap", stringData: { k: "v" } };
    assert.equal(asStored(configMap), configMap);
  });
});

// A Deployment whose live form the server normalised (a quantity): only the memo can tell it is unchanged.
const desiredOf = (i: number, cpu = "500m"): KubeJson => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: `d${i}`, labels: { "kro.run/owned": "true" } },
  spec: { cpu },
});
const liveOf = (i: number, generation = 1): KubeJson => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: `d${i}`,
    uid: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
    generation,
    labels: { "kro.run/owned": "true" },
  },
  spec: { cpu: "0.5" },
});

describe("ApplyMemo: hashes in a byte-bounded LRU", () => {
  it("recognises its own last apply of the same object (normalised by the server); not a changed one, a changed generation or lost labels", () => {
    const memo = new ApplyMemo();
    assert.equal(memo.upToDate(desiredOf(1), liveOf(1)), false, "nothing recorded yet");
    memo.record(desiredOf(1), liveOf(1));
    assert.equal(memo.upToDate(desiredOf(1), liveOf(1)), true);
    assert.equal(memo.upToDate(desiredOf(1, "600m"), liveOf(1)), false, "desired changed");
    assert.equal(memo.upToDate(desiredOf(1), liveOf(1, 2)), false, "someone changed the spec");
    const unlabelled = { ...liveOf(1), metadata: { ...(liveOf(1).metadata as object), labels: {} } };
    assert.equal(memo.upToDate(desiredOf(1), unlabelled), false, "our label was removed");
    memo.forget((liveOf(1).metadata as { uid: string }).uid);
    assert.equal(memo.upToDate(desiredOf(1), liveOf(1)), false);
  });

  it("keeps hashes, not JSON: an entry costs the same for a 1 MB object as for a small one", () => {
    const small = new ApplyMemo();
    small.record(desiredOf(1), liveOf(1));
    const big = new ApplyMemo();
    big.record({ ...desiredOf(1), data: { blob: "x".repeat(1_000_000) } }, liveOf(1));
    assert.equal(big.stats.bytes, small.stats.bytes);
    assert.ok(small.stats.bytes < 300, `${small.stats.bytes} bytes per entry`);
  });

  it("stays within its byte budget by evicting the least recently used entry, one at a time, never all at once", () => {
    const one = new ApplyMemo();
    one.record(desiredOf(0), liveOf(0));
    const memo = new ApplyMemo({ maxBytes: one.stats.bytes * 10 });
    for (let i = 0; i < 10; i++) memo.record(desiredOf(i), liveOf(i));
    assert.equal(memo.stats.entries, 10);
    assert.equal(memo.upToDate(desiredOf(0), liveOf(0)), true, "a read makes d0 recently used");
    memo.record(desiredOf(10), liveOf(10));
    assert.equal(memo.stats.entries, 10, "one evicted, not everything");
    assert.ok(memo.stats.bytes <= one.stats.bytes * 10);
    assert.equal(memo.upToDate(desiredOf(0), liveOf(0)), true, "d0 was used recently: kept");
    assert.equal(memo.upToDate(desiredOf(1), liveOf(1)), false, "d1 was the least recently used: evicted");
    for (let i = 2; i <= 10; i++) assert.equal(memo.upToDate(desiredOf(i), liveOf(i)), true, `d${i} kept`);
    for (let i = 11; i < 1000; i++) memo.record(desiredOf(i), liveOf(i));
    assert.equal(memo.stats.entries, 10);
    assert.equal(memo.upToDate(desiredOf(999), liveOf(999)), true);
  });
});
