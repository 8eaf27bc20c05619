/**
 * The ownership record on the real API server: writers that start from the same stale copy of an
 * instance (a lagging informer, two replicas) never erase each other's entries — every write is
 * preconditioned on resourceVersion and, on a conflict, the writer's delta is re-applied to the
 * fresh record. In its annotation layout any object can carry it for this test.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKubeClient, type KubeClient, type KubeObject } from "../../src/index.js";
import { recordDelta } from "../../src/controller/instance/record.js";
import { readInventory, recordsInStatus, type OwnedChild } from "../../src/controller/instance/inventory.js";
import { writeStatus } from "../../src/controller/instance/status-write.js";
import { InstanceMemory } from "../../src/controller/context/index.js";
import type { ControllerContext } from "../../src/controller/context/controller-context.js";
import { createLogger } from "../../src/observability/index.js";
import { kubectl, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { eventually } from "../support/eventually.js";

const namespace = `record-${letterSuffix()}`;
let client: KubeClient;
let ctx: ControllerContext;
const child = (name: string): OwnedChild => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  namespace,
  name,
  uid: `uid-${name}`,
  nodeId: "cm",
  ownership: "created",
});
const names = (object: KubeObject) =>
  readInventory(object)
    .entries.map((e) => e.name)
    .sort();

async function holder(name: string, entries: OwnedChild[]): Promise<KubeObject> {
  const record = JSON.stringify({
    v: 2,
    key: "key-1",
    items: entries.map((e) => [e.apiVersion, e.kind, e.namespace ?? "", e.name, e.uid, e.nodeId]),
  });
  return client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, annotations: { "internal.kro.run/inventory": record } },
  });
}

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

describe("the ownership record under concurrent writers", () => {
  it("a delta written from a stale copy keeps what was recorded since that copy was read", async () => {
    const stale = await holder("stale", [child("a")]);
    await recordDelta(ctx, stale, { recorded: [child("b")], removedUids: [] });
    const written = await recordDelta(ctx, stale, { recorded: [child("c")], removedUids: ["uid-a"] });
    assert.deepEqual(names(written), ["b", "c"]);
    assert.deepEqual(names(await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name: "stale" })), [
      "b",
      "c",
    ]);
  });

  it("6 writers racing from one copy: all 6 records survive (repeated 3 times)", async () => {
    for (let round = 0; round < 3; round++) {
      const start = await holder(`race-${round}`, []);
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => recordDelta(ctx, start, { recorded: [child(`c${i}`)], removedUids: [] })),
      );
      const final = await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name: `race-${round}` });
      assert.equal(readInventory(final).entries.length, 6, `round ${round}: ${names(final).join(",")}`);
      assert.equal(readInventory(final).key, "key-1", "the creation key is never replaced");
    }
  });
});

/**
 * The record in status (`{"v":3,"key":…}` in the annotation, the entries in `status.kroInventory`):
 * written by the status write itself, merged on a conflict like the annotation's, and moved to the
 * annotation when the CRD does not keep the field (one an older release installed).
 */
describe("the ownership record in status under concurrent writers", () => {
  const group = `record-${letterSuffix()}.kro-ts.test`;
  const crdFor = (plural: string, kind: string, statusProperties: Record<string, unknown>) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                status: { type: "object", properties: statusProperties },
              },
            },
          },
        },
      ],
    },
  });
  const KEEPS = crdFor("keepers", "Keeper", { state: { type: "string" }, kroInventory: { type: "string" } });
  const DROPS = crdFor("droppers", "Dropper", { state: { type: "string" } });
  let statusCtx: Parameters<typeof writeStatus>[0];

  before(async () => {
    statusCtx = {
      client,
      instanceMemory: new InstanceMemory(),
      eventClient: client,
      logger: createLogger({ level: "silent", name: "record-test", format: "text" }),
      now: () => new Date(),
    } as unknown as Parameters<typeof writeStatus>[0];
    await kubectl(["apply", "-f", "-"], `${JSON.stringify(KEEPS)}\n---\n${JSON.stringify(DROPS)}`);
    await kubectl([
      "wait",
      "--for=condition=Established",
      `crd/keepers.${group}`,
      `crd/droppers.${group}`,
      "--timeout=60s",
    ]);
    // The client's discovery catches up a little after the CRD is established.
    await eventually(
      async () => {
        await client.list(`${group}/v1`, "Keeper");
        await client.list(`${group}/v1`, "Dropper");
      },
      { timeout: 30_000 },
    );
  });
  after(async () => {
    await kubectl(["delete", "crd", `keepers.${group}`, `droppers.${group}`, "--wait=false", "--ignore-not-found"]);
  });

  const create = (kind: string, name: string) =>
    client.create<KubeObject>({
      apiVersion: `${group}/v1`,
      kind,
      metadata: {
        name,
        namespace,
        annotations: { "internal.kro.run/inventory": JSON.stringify({ v: 3, key: "key-3" }) },
      },
      spec: {},
    });

  it("6 status writes racing from one copy, each with its own delta: all 6 entries survive (repeated 3 times)", async () => {
    for (let round = 0; round < 3; round++) {
      const start = await create("Keeper", `race-${round}`);
      // Different status too: the writers that lose their race leave the status to a later pass, never the entries.
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          writeStatus(statusCtx, start, { state: `s${i}` }, { recorded: [child(`c${i}`)], removedUids: [] }),
        ),
      );
      const final = await client.get({ apiVersion: `${group}/v1`, kind: "Keeper", namespace, name: `race-${round}` });
      assert.equal(
        readInventory(final).entries.length,
        6,
        `round ${round}: ${names(final).join(",")} (${results.map((r) => r.status).join(",")})`,
      );
      assert.equal(readInventory(final).key, "key-3");
      assert.ok(recordsInStatus(final), "the entries stay in status");
      assert.ok(
        results.some((r) => r.status === "fulfilled"),
        "one writer won outright",
      );
    }
  });

  it("a status write without a delta keeps the record as it stands (a PUT replaces the whole status)", async () => {
    const start = await create("Keeper", "keep");
    await writeStatus(statusCtx, start, { state: "A" }, { recorded: [child("a"), child("b")], removedUids: [] });
    const written = await client.get({ apiVersion: `${group}/v1`, kind: "Keeper", namespace, name: "keep" });
    await writeStatus(statusCtx, written, { state: "B" });
    const final = await client.get({ apiVersion: `${group}/v1`, kind: "Keeper", namespace, name: "keep" });
    assert.deepEqual([(final.status as { state?: string }).state, names(final)], ["B", ["a", "b"]]);
  });

  it("a CRD that prunes the field: the entries move to the annotation in the same pass", async () => {
    const start = await create("Dropper", "drop");
    await writeStatus(statusCtx, start, { state: "A" }, { recorded: [child("a")], removedUids: [] });
    const final = await client.get({ apiVersion: `${group}/v1`, kind: "Dropper", namespace, name: "drop" });
    assert.ok(!recordsInStatus(final), "moved to the annotation (layout 2)");
    assert.deepEqual([names(final), readInventory(final).key], [["a"], "key-3"]);
  });
});
