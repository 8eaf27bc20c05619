import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject, WriteFence } from "../kube/index.js";
import { createLogger } from "../observability/index.js";
import type { ControllerContext } from "./context/index.js";
import { instanceKeyOf } from "./context/index.js";
import { shardOf } from "./coordination/index.js";
import { ShardedCaches } from "./sharded-caches.js";
import { ManualClock } from "../../test/support/manual-clock.js";
import type { InstanceShards } from "./sharded-work.js";

const SHARDS = 4;
const RGD = "web";
const logger = createLogger({ level: "silent", name: "t", format: "text" });

/** An instance named so that its key falls on `shard`. */
function instanceOn(shard: number, label?: string): KubeObject {
  for (let i = 0; ; i++) {
    const object: KubeObject = {
      apiVersion: "kro.run/v1alpha1",
      kind: "Web",
      metadata: {
        name: `w-${i}`,
        namespace: "ns",
        resourceVersion: "7",
        ...(label === undefined ? {} : { labels: { "kro.run/shard": label } }),
      },
    };
    if (shardOf(instanceKeyOf(RGD, object), SHARDS) === shard) return object;
  }
}

function fixture(held: number[], instances: KubeObject[] = []) {
  const queued: string[] = [];
  const acquiredListeners: ((shard: number) => void)[] = [];
  const heldListeners: (() => void)[] = [];
  const patches: { fence: string; body: unknown }[] = [];
  const fence = (shard: number) => ({ name: `tenure-${shard}` }) as unknown as WriteFence;
  const ctx = {
    logger,
    instanceQueue: {
      add: (key: string) => {
        queued.push(key);
      },
    },
    instanceLeases: new Map([[RGD, { informer: { store: { list: () => instances } } }]]),
    client: {
      withFence: (f: { name: string }) => ({
        patch: (_ref: unknown, body: unknown) => {
          patches.push({ fence: f.name, body });
          return Promise.resolve({});
        },
      }),
    },
  } as unknown as ControllerContext;
  const shards: InstanceShards = {
    shardCount: SHARDS,
    shardOf: (key) => shardOf(key, SHARDS),
    admit: () => undefined,
    onAcquired: (listener) => {
      acquiredListeners.push(listener);
    },
    held: () => held,
    onHeldChanged: (listener) => {
      heldListeners.push(listener);
    },
    tenureFence: (s) => (held.includes(s) ? fence(s) : undefined),
  };
  const clock = new ManualClock();
  const acquired = (shard: number) => {
    for (const listener of acquiredListeners) listener(shard);
  };
  return { caches: new ShardedCaches(() => ctx, shards, clock), queued, patches, clock, acquired };
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
    assert.deepEqual(patches, [
      { fence: "tenure-1", body: { metadata: { resourceVersion: "7", labels: { "kro.run/shard": "2" } } } },
    ]);
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

describe("ShardedCaches: every tenure queues its shard", () => {
  it("a shard taken again with the held set unchanged (a lapsed tenure, a restart under the same name) queues every instance in it", async () => {
    const onZero = [instanceOn(0, "0"), instanceOn(0)];
    const { caches, queued, clock, acquired } = fixture([0, 1], [...onZero, instanceOn(1, "1"), instanceOn(2, "2")]);
    caches.start();
    await clock.advance(100);
    assert.deepEqual(queued, [], "the held set is what the caches already select: nothing to do");
    acquired(0); // a new tenure of shard 0; held() still says [0, 1]
    await clock.advance(100);
    assert.deepEqual(
      queued.sort(),
      onZero.map((o) => instanceKeyOf(RGD, o)).sort(),
      "shard 0's instances, and only them",
    );
    caches.stop();
  });
});
