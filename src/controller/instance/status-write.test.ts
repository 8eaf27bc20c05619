import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { statusFingerprint, writeStatus, type StatusWriter } from "./status-write.js";

const instance = (status: Record<string, unknown>, rv = "1"): KubeObject => ({
  apiVersion: "kro.run/v1alpha1", kind: "App", metadata: { name: "a", namespace: "ns", uid: "u-1", generation: 1, resourceVersion: rv }, status,
});

function writer(memo = new Map<string, string>()): StatusWriter & { puts: KubeObject[] } {
  const puts: KubeObject[] = [];
  const client = { updateStatus: (object: KubeObject) => { puts.push(object); return Promise.resolve(object); } };
  return { client, statusMemo: memo, logger: createLogger({ level: "silent", name: "t", format: "text" }), eventClient: client, now: () => new Date(0), puts } as unknown as StatusWriter & { puts: KubeObject[] };
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
    assert.deepEqual(ctx.puts.map((o) => (o.status as { state: string }).state), ["ACTIVE"]);
  });
});
