/**
 * The real KubeClient against the in-memory fake API (test/unit-support/fake-api/): the server
 * semantics the controller's unit tests rely on, answered with the client's own error types.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { isAlreadyExists, isConflict, isInvalid, isNotFound } from "./errors.js";
import type { KubeObject } from "./types.js";
import { Actor, clientFor, FakeCluster, settle } from "../../test/unit-support/fake-api/index.js";

const valueOf = (object: KubeObject | undefined): unknown => (object?.data as Record<string, string> | undefined)?.a;

const cmRef = { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "cm" };
const cm = (data: Record<string, string> = { a: "1" }): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", namespace: "default" },
  data,
});

function fixture(t: TestContext) {
  const cluster = new FakeCluster();
  const client = clientFor(cluster);
  t.after(() => {
    client.close();
  });
  return { cluster, client, actor: new Actor(cluster) };
}

describe("KubeClient on the fake API", () => {
  it("creates with server fields, refuses a second create, and answers 404 for what is not there", async (t) => {
    const { client } = fixture(t);
    const created = await client.create(cm());
    assert.match(created.metadata?.uid ?? "", /^uid-/);
    assert.equal(created.metadata?.generation, 1);
    await assert.rejects(client.create(cm()), (e) => isAlreadyExists(e) && !isConflict(e));
    await assert.rejects(client.get({ ...cmRef, name: "other" }), isNotFound);
  });

  it("every change bumps the resourceVersion; a stale one in a write is a 409 Conflict; a no-op write changes nothing", async (t) => {
    const { client } = fixture(t);
    const created = await client.create(cm());
    const patched = await client.patch(cmRef, {
      metadata: { resourceVersion: created.metadata?.resourceVersion },
      data: { a: "2" },
    });
    assert.ok(Number(patched.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
    await assert.rejects(
      client.patch(cmRef, { metadata: { resourceVersion: created.metadata?.resourceVersion }, data: { a: "3" } }),
      isConflict,
    );
    await assert.rejects(
      client.replace({
        ...patched,
        metadata: { ...patched.metadata, resourceVersion: created.metadata?.resourceVersion ?? "" },
      }),
      isConflict,
    );
    const again = await client.replace(patched);
    assert.equal(again.metadata?.resourceVersion, patched.metadata?.resourceVersion);
    await assert.rejects(client.delete(cmRef, { preconditions: { uid: "someone-else" } }), isConflict);
  });

  it("a finalizer holds a delete as a deletionTimestamp; removing the last one removes the object; none may be added meanwhile", async (t) => {
    const { client } = fixture(t);
    await client.create({ ...cm(), metadata: { name: "cm", namespace: "default", finalizers: ["example.com/hold"] } });
    const deleting = await client.delete(cmRef);
    assert.ok(deleting.metadata?.deletionTimestamp);
    assert.ok(await client.get(cmRef));
    await assert.rejects(
      client.patch(cmRef, { metadata: { finalizers: ["example.com/hold", "example.com/more"] } }),
      isInvalid,
    );
    await client.patch(cmRef, { metadata: { finalizers: null } });
    await assert.rejects(client.get(cmRef), isNotFound);
  });

  it("server-side apply creates, merges, and drops what the same manager no longer applies", async (t) => {
    const { client } = fixture(t);
    await client.apply(cm({ a: "1", b: "2" }), { fieldManager: "m", force: true });
    await client.patch(cmRef, { data: { other: "x" } }, { fieldManager: "someone" });
    const applied = await client.apply(cm({ a: "1" }), { fieldManager: "m", force: true });
    assert.deepEqual(applied.data, { a: "1", other: "x" });
    assert.deepEqual(
      applied.metadata?.managedFields?.map((f) => `${f.manager ?? ""}/${f.operation ?? ""}`),
      ["m/Apply", "someone/Update"],
    );
    await assert.rejects(
      client.apply({ ...cm(), metadata: { name: "new", namespace: "default", uid: "uid-x" } }, { fieldManager: "m" }),
      isConflict,
    );
  });

  it("informers see every change, lag while watches are held, and faults fire on the requests they match", async (t) => {
    const { cluster, client, actor } = fixture(t);
    const informer = client.informer({ apiVersion: "v1", kind: "ConfigMap" }).start();
    t.after(() => informer.stop());
    await informer.waitForSync();
    actor.create(cm());
    await settle();
    assert.equal(valueOf(informer.store.getByName("default", "cm")), "1");
    cluster.holdWatches();
    actor.edit(cmRef, (o) => {
      o.data = { a: "2" };
    });
    await settle();
    assert.equal(valueOf(informer.store.getByName("default", "cm")), "1", "stale while held");
    cluster.releaseWatches();
    await settle();
    assert.equal(valueOf(informer.store.getByName("default", "cm")), "2");
    cluster.faults.conflictNext({ verb: "patch", kind: "ConfigMap", name: "cm" });
    await assert.rejects(client.patch(cmRef, { data: { a: "3" } }), isConflict);
    await client.patch(cmRef, { data: { a: "3" } });
    actor.delete(cmRef);
    await settle();
    assert.equal(informer.store.getByName("default", "cm"), undefined);
  });
});
