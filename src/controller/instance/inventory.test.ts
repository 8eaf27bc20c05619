import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  applyDelta,
  encodeInventory,
  encodeKeyOnly,
  encodeStatusRecord,
  InventoryFormatError,
  readInventory,
  recordsInStatus,
  recordText,
  type OwnedChild,
} from "./inventory.js";

const ANNOTATION = "internal.kro.run/inventory";
const withAnnotation = (value: string) => ({ metadata: { annotations: { [ANNOTATION]: value } } });
const child = (name: string, uid = `uid-${name}`, ownership: OwnedChild["ownership"] = "created"): OwnedChild => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  namespace: "ns",
  name,
  uid,
  nodeId: "cm",
  ownership,
});

describe("inventory record", () => {
  it("round-trips entries, the creation key and adopted entries", () => {
    const inventory = { key: "k-1", entries: [child("a"), child("b", "uid-b", "adopted")] };
    const read = readInventory(withAnnotation(encodeInventory(inventory)));
    assert.equal(read.key, "k-1");
    assert.deepEqual(
      read.entries.map((e) => [e.name, e.uid, e.ownership]),
      [
        ["a", "uid-a", "created"],
        ["b", "uid-b", "adopted"],
      ],
    );
  });
  it("refuses a bare list (no creation key) instead of guessing what it owns", () => {
    assert.throws(
      () => readInventory(withAnnotation(JSON.stringify([["v1", "ConfigMap", "ns", "a", "uid-a", "cm"]]))),
      /must be a JSON object/,
    );
  });
  it("an instance without the annotation owns nothing", () => {
    assert.deepEqual(readInventory({ metadata: {} }), { key: undefined, entries: [] });
  });
  for (const [label, raw] of [
    ["not JSON", "{nope"],
    ["a scalar", "42"],
    ["an unknown layout", JSON.stringify({ v: 3, key: "k", items: [] })],
    ["an empty key", JSON.stringify({ v: 2, key: "", items: [] })],
    ["a short entry", JSON.stringify({ v: 2, key: "k", items: [["v1", "ConfigMap", "ns", "a"]] })],
    ["an entry without a UID", JSON.stringify({ v: 2, key: "k", items: [["v1", "ConfigMap", "ns", "a", "", "cm"]] })],
    ["a non-string part", JSON.stringify({ v: 2, key: "k", items: [["v1", "ConfigMap", "ns", "a", 7, "cm"]] })],
    [
      "an unknown ownership flag",
      JSON.stringify({ v: 2, key: "k", items: [["v1", "ConfigMap", "ns", "a", "u", "cm", "x"]] }),
    ],
  ] as const) {
    it(`refuses to guess from ${label}`, () => {
      assert.throws(() => readInventory(withAnnotation(raw)), InventoryFormatError);
    });
  }
});

describe("inventory record in status (layout 3)", () => {
  const inStatus = (key: string, record: unknown) => ({
    metadata: { annotations: { [ANNOTATION]: encodeKeyOnly(key) } },
    status: { state: "ACTIVE", kroInventory: record },
  });
  it("keeps the key in the annotation and reads the entries from status.kroInventory", () => {
    const instance = inStatus("k-3", encodeStatusRecord([child("b", "uid-b", "adopted"), child("a")]));
    assert.equal(recordsInStatus(instance), true);
    const read = readInventory(instance);
    assert.equal(read.key, "k-3");
    assert.deepEqual(
      read.entries.map((e) => [e.name, e.ownership]),
      [
        ["a", "created"],
        ["b", "adopted"],
      ],
    );
  });
  it("writes its entries in code-unit order, the same text whatever the machine's locale", () => {
    // localeCompare (en) gives a, a-b, ab, b, B: case folded, and it ignores the NUL separators entirely.
    const record = encodeStatusRecord([child("b"), child("ab"), child("a-b"), child("B"), child("a")]);
    assert.deepEqual(
      readInventory(inStatus("k", record)).entries.map((e) => e.name),
      ["B", "a", "a-b", "ab", "b"],
    );
  });
  it("owns nothing yet while the status holds no record (a new instance, or a status someone replaced)", () => {
    assert.deepEqual(readInventory({ metadata: { annotations: { [ANNOTATION]: encodeKeyOnly("k") } } }), {
      key: "k",
      entries: [],
    });
  });
  it("a status record is not read for an instance whose annotation holds the entries (layout 2)", () => {
    const instance = {
      ...withAnnotation(encodeInventory({ key: "k", entries: [child("a")] })),
      status: { kroInventory: encodeStatusRecord([child("b")]) },
    };
    assert.equal(recordsInStatus(instance), false);
    assert.deepEqual(
      readInventory(instance).entries.map((e) => e.name),
      ["a"],
    );
  });
  it("two copies compare equal only when annotation and status record do", () => {
    const a = inStatus("k", encodeStatusRecord([child("a")]));
    assert.equal(recordText(a), recordText(inStatus("k", encodeStatusRecord([child("a")]))));
    assert.notEqual(recordText(a), recordText(inStatus("k", encodeStatusRecord([child("a"), child("b")]))));
  });
  for (const [label, record] of [
    ["not JSON", "{nope"],
    ["not a string", { v: 3, items: [] }],
    ["an unknown layout", JSON.stringify({ v: 2, items: [] })],
    ["a malformed entry", JSON.stringify({ v: 3, items: [["v1", "ConfigMap", "ns", "a"]] })],
  ] as const) {
    it(`refuses to guess from a status record that is ${label}`, () => {
      assert.throws(
        () => readInventory(inStatus("k", record)),
        (e: unknown) => e instanceof InventoryFormatError && e.message.includes("status.kroInventory"),
      );
    });
  }
});

describe("inventory deltas (two writers never erase each other's records)", () => {
  it("re-applied on a fresher copy, a delta keeps what the other writer recorded", () => {
    const fresh = { key: "k", entries: [child("theirs")] };
    const ours = { recorded: [child("ours")], removedUids: [] };
    assert.deepEqual(
      applyDelta(fresh, ours)
        .map((e) => e.name)
        .sort(),
      ["ours", "theirs"],
    );
  });
  it("removes only the UIDs it saw gone; a recreated object replaces its old record by identity", () => {
    const fresh = { key: "k", entries: [child("a"), child("b")] };
    const entries = applyDelta(fresh, { recorded: [child("b", "uid-b2")], removedUids: ["uid-a"] });
    assert.deepEqual(
      entries.map((e) => [e.name, e.uid]),
      [["b", "uid-b2"]],
    );
  });
  it("a stale copy's delta never drops a child recorded after that copy was read", () => {
    // Reconcile 1 read an empty record from a stale cache; reconcile 2 had recorded "late" since.
    const fresh = { key: "k", entries: [child("late")] };
    assert.deepEqual(
      applyDelta(fresh, { recorded: [], removedUids: [] }).map((e) => e.name),
      ["late"],
    );
  });
});

describe("inventory record of children in other clusters", () => {
  it("round-trips the cluster, created and adopted, and keys the same name in two clusters apart", () => {
    const remote = { ...child("a"), cluster: "b" } as OwnedChild;
    const adopted = { ...child("a", "uid-a2", "adopted"), cluster: "c" } as OwnedChild;
    const read = readInventory(
      withAnnotation(encodeInventory({ key: "k", entries: [child("a", "uid-a0"), remote, adopted] })),
    );
    assert.deepEqual(
      read.entries.map((e) => [e.name, e.cluster, e.ownership]).sort(),
      [
        ["a", "b", "created"],
        ["a", "c", "adopted"],
        ["a", undefined, "created"],
      ].sort(),
    );
    assert.equal(
      applyDelta({ key: "k", entries: [child("a", "uid-a0")] }, { recorded: [remote], removedUids: [] }).length,
      2,
    );
  });
  it("refuses a malformed cluster element", () => {
    assert.throws(
      () =>
        readInventory(
          withAnnotation(
            JSON.stringify({ v: 2, key: "k", items: [["v1", "ConfigMap", "ns", "a", "u", "cm", "", ""]] }),
          ),
        ),
      InventoryFormatError,
    );
    assert.throws(
      () =>
        readInventory(
          withAnnotation(
            JSON.stringify({ v: 2, key: "k", items: [["v1", "ConfigMap", "ns", "a", "u", "cm", "x", "b"]] }),
          ),
        ),
      InventoryFormatError,
    );
  });
});
