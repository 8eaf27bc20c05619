import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject, WriteFence } from "../kube/index.js";
import { createLogger } from "../observability/index.js";
import type { ControllerContext } from "./context/index.js";
import { instanceKeyOf } from "./context/index.js";
import { shardOf } from "./coordination/index.js";
import { ShardedCaches } from "./sharded-caches.js";
import type { InstanceShards } from "./sharded-work.js";

const SHARDS = 4;
const RGD = "web";
const logger = createLogger({ level: "silent", name: "t", format: "text" });

/** An instance named so that its key falls on `shard`. */
function instanceOn(shard: number, label?: string): KubeObject {
  for (let i = 0; ; i++) {
    const object: KubeObject = { apiVersion: "kro.run/v1alpha1", kind: "Web", metadata: { name: `w-${i}`, namespace: "ns", resourceVersion: "7", ...(label === undefined ? {} : { labels: { "kro.run/shard": label } }) } };
    if (shardOf(instanceKeyOf(RGD, object), SHARDS) === shard) return object;
  }
}

function fixture(held: number[]) {
  const queued: string[] = [];
  const patches: { fence: string; body: unknown }[] = [];
  const fence = (shard: number) => ({ name: `tenure-${shard}` }) as unknown as WriteFence;
  const ctx = {
    logger,
    instanceQueue: { add: (key: string) => { queued.push(key); } },
    client: { withFence: (f: { name: string }) => ({ patch: (_ref: unknown, body: unknown) => { patches.push({ fence: f.name, body }); return Promise.resolve({}); } }) },
  } as unknown as ControllerContext;
  const shards: InstanceShards = {
    shardCount: SHARDS, shardOf: (key) => shardOf(key, SHARDS), admit: () => undefined, onAcquired: () => undefined,
    held: () => held, onHeldChanged: () => undefined, tenureFence: (s) => (held.includes(s) ? fence(s) : undefined),
  };
  return { caches: new ShardedCaches(() => ctx, shards), queued, patches };
}

describe("ShardedCaches: a wrong shard label is put right, never obeyed", () => {
  it("an instance of a held shard without its label (new, garbage, another held shard) is queued: its reconcile labels it", () => {
    const { caches, queued, patches } = fixture([0, 1]);
    for (const label of [undefined, "zzz", "1", "9"]) caches.seen(RGD, instanceOn(0, label));
    assert.equal(queued.length, 4);
    assert.deepEqual(patches, []);
  });

  it("an instance of a shard held elsewhere, labelled with a shard held here, is relabelled through that shard's fence", async () => {
    const { caches, queued, patches } = fixture([0, 1]);
    caches.seen(RGD, instanceOn(2, "1"));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(queued, [], "not reconciled here: another replica holds its shard");
    assert.deepEqual(patches, [{ fence: "tenure-1", body: { metadata: { resourceVersion: "7", labels: { "kro.run/shard": "2" } } } }]);
  });

  it("leaves alone what is right, and what only another replica sees", () => {
    const { caches, queued, patches } = fixture([0, 1]);
    caches.seen(RGD, instanceOn(0, "0"));
    caches.seen(RGD, instanceOn(2, "2"));
    caches.seen(RGD, instanceOn(2)); // a stray of another replica's shard: its holder labels it
    caches.seen(RGD, instanceOn(2, "3")); // labelled for a shard held elsewhere: that holder corrects it
    assert.deepEqual(queued, []);
    assert.deepEqual(patches, []);
  });
});
