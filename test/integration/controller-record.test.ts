/**
 * The ownership record on the real API server: writers that start from the same stale copy of an
 * instance (a lagging informer, two replicas) never erase each other's entries — every write is
 * preconditioned on resourceVersion and, on a conflict, the writer's delta is re-applied to the
 * fresh record. The record lives in an annotation, so any object can carry it for this test.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKubeClient, type KubeClient, type KubeObject } from "../../src/index.js";
import { recordDelta } from "../../src/controller/instance/record.js";
import { readInventory, type OwnedChild } from "../../src/controller/instance/inventory.js";
import type { ControllerContext } from "../../src/controller/context/controller-context.js";
import { kubectl, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";

const namespace = `record-${letterSuffix()}`;
let client: KubeClient;
let ctx: ControllerContext;
const child = (name: string): OwnedChild => ({ apiVersion: "v1", kind: "ConfigMap", namespace, name, uid: `uid-${name}`, nodeId: "cm", ownership: "created" });
const names = (object: KubeObject) => readInventory(object).entries.map((e) => e.name).sort();

async function holder(name: string, entries: OwnedChild[]): Promise<KubeObject> {
  const record = JSON.stringify({ v: 2, key: "key-1", items: entries.map((e) => [e.apiVersion, e.kind, e.namespace ?? "", e.name, e.uid, e.nodeId]) });
  return client.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, annotations: { "internal.kro.run/inventory": record } } });
}

describe("the ownership record under concurrent writers", () => {
  before(async () => {
    client = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
    // recordDelta needs only the client of the controller's context.
    ctx = { client } as unknown as ControllerContext;
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    client.close();
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("a delta written from a stale copy keeps what was recorded since that copy was read", async () => {
    const stale = await holder("stale", [child("a")]);
    await recordDelta(ctx, stale, { recorded: [child("b")], removedUids: [] });
    const written = await recordDelta(ctx, stale, { recorded: [child("c")], removedUids: ["uid-a"] });
    assert.deepEqual(names(written), ["b", "c"]);
    assert.deepEqual(names(await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name: "stale" })), ["b", "c"]);
  });

  it("6 writers racing from one copy: all 6 records survive (repeated 3 times)", async () => {
    for (let round = 0; round < 3; round++) {
      const start = await holder(`race-${round}`, []);
      await Promise.all(Array.from({ length: 6 }, (_, i) => recordDelta(ctx, start, { recorded: [child(`c${i}`)], removedUids: [] })));
      const final = await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name: `race-${round}` });
      assert.equal(readInventory(final).entries.length, 6, `round ${round}: ${names(final).join(",")}`);
      assert.equal(readInventory(final).key, "key-1", "the creation key is never replaced");
    }
  });
});
