import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, type KubeObject } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { InstanceMemory } from "../context/index.js";
import { statusFingerprint, writeStatus, type StatusWriter } from "./status-write.js";

const instance = (status: Record<string, unknown>, rv = "1"): KubeObject => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "App",
  metadata: { name: "a", namespace: "ns", uid: "u-1", generation: 1, resourceVersion: rv },
  status,
});

function memoryOf(memo: Map<string, string>): InstanceMemory {
  const memory = new InstanceMemory();
  for (const [uid, fingerprint] of memo) memory.statusWritten.set(uid, fingerprint);
  return memory;
}

function writer(memo = new Map<string, string>()): StatusWriter & { puts: KubeObject[] } {
  const puts: KubeObject[] = [];
  const client = {
    updateStatus: (object: KubeObject) => {
      puts.push(object);
      return Promise.resolve(object);
    },
  };
  return {
    client,
    instanceMemory: memoryOf(memo),
    logger: createLogger({ level: "silent", name: "t", format: "text" }),
    eventClient: client,
    now: () => new Date(0),
    puts,
  } as unknown as StatusWriter & { puts: KubeObject[] };
}

describe("writeStatus: what it skips", () => {
  it("writes nothing when the copy already says it and nothing of ours was written since (a restart, a resync)", async () => {
    const ctx = writer();
    await writeStatus(ctx, instance({ state: "ACTIVE" }), { state: "ACTIVE" });
    assert.equal(ctx.puts.length, 0);
  });

  it("writes nothing when it wrote exactly this last, however far the copy lags", async () => {
    const ctx = writer();
    await writeStatus(ctx, instance({ state: "IN_PROGRESS" }), { state: "ACTIVE" });
    await writeStatus(ctx, instance({ state: "IN_PROGRESS" }), { state: "ACTIVE" });
    assert.equal(ctx.puts.length, 1);
  });

  it("does not trust a copy older than its own last write: ACTIVE read back after it wrote IN_PROGRESS is written again", async () => {
    // Seen on the real API server (controller-warm-standby): a pass wrote IN_PROGRESS while a child
    // was not cached yet; the next pass read a copy from before that write, computed ACTIVE, and
    // skipped as "equal" — the instance stayed IN_PROGRESS.
    const memo = new Map([["u-1", `${statusFingerprint({ state: "IN_PROGRESS" })} 1`]]);
    const ctx = writer(memo);
    await writeStatus(ctx, instance({ state: "ACTIVE" }), { state: "ACTIVE" });
    assert.deepEqual(
      ctx.puts.map((o) => (o.status as { state: string }).state),
      ["ACTIVE"],
    );
  });
});

describe("writeStatus: a conflict", () => {
  const conflict = () =>
    new ApiError({
      status: 409,
      verb: "PUT",
      path: "/apis/kro.run/v1alpha1/namespaces/ns/apps/a/status",
      body: JSON.stringify({ kind: "Status", reason: "Conflict", message: "the object has been modified", code: 409 }),
    });
  function conflicting(fresh: KubeObject): StatusWriter & { gets: number } {
    const ctx = {
      gets: 0,
      instanceMemory: new InstanceMemory(),
      logger: createLogger({ level: "silent", name: "t", format: "text" }),
      now: () => new Date(0),
    } as unknown as StatusWriter & { gets: number };
    const client = {
      updateStatus: () => Promise.reject(conflict()),
      get: () => {
        ctx.gets += 1;
        return Promise.resolve(fresh);
      },
    };
    return Object.assign(ctx, { client, eventClient: client });
  }
  const ready = {
    state: "ACTIVE",
    observedGeneration: 1,
    conditions: [{ type: "Ready", status: "True", observedGeneration: 1 }],
  };

  it("settles when the fresh copy already says the same for the same generation", async () => {
    const ctx = conflicting(instance(ready, "2"));
    await writeStatus(ctx, instance({ state: "IN_PROGRESS" }), ready);
    assert.equal(ctx.gets, 1);
  });

  it("does not settle on an equal status when the spec changed meanwhile: Ready of generation 1 is no answer for generation 2", async () => {
    const fresh = { ...instance(ready, "3"), metadata: { ...instance(ready, "3").metadata, generation: 2 } };
    const ctx = conflicting(fresh);
    await assert.rejects(writeStatus(ctx, instance({ state: "IN_PROGRESS" }), ready), /modified/);
    assert.equal(ctx.instanceMemory.size, 0, "nothing remembered as written");
  });
});
