import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planApplies } from "./apply-plan.js";
import { judgeExisting, readApplyOutcome, adoptionPolicy, isUidGuardRefusal } from "./apply-outcome.js";
import type { OwnedChild } from "./inventory.js";
import type { KubeJson } from "../../runtime/index.js";

const KEY = "creation-key-1";
const owner = { uid: "inst-uid", group: "kro.run", kind: "WebApp", namespace: "ns", name: "web" };
const desired = (name: string): KubeJson => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", labels: { "kro.run/node-id": "cm", "kro.run/instance-id": "inst-uid" } },
  data: { a: "1" },
});
const entry = (name: string, uid: string, ownership: OwnedChild["ownership"] = "created"): OwnedChild => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  namespace: "ns",
  name,
  uid,
  nodeId: "cm",
  ownership,
});
const live = (
  name: string,
  uid: string,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): KubeJson => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", uid, ...extra },
  data: { a: "1" },
});
const plan = (entries: OwnedChild[], cached: Record<string, KubeJson>, upToDate = true) =>
  planApplies({
    desired: [desired("a")],
    inventory: { key: KEY, entries },
    cached: (id) => cached[id.name],
    upToDate: () => upToDate,
    settled: () => false,
  });
const only = <T>(items: readonly T[]): T => {
  assert.equal(items.length, 1);
  return items[0] as T;
};
const metaOf = (o: KubeJson) =>
  o.metadata as { uid?: string; resourceVersion?: string; annotations?: Record<string, string> };

describe("planApplies: every write is guarded", () => {
  it("a child we have no record of is written create-only (an impossible resourceVersion) with our creation key", () => {
    const step = only(plan([], {}));
    assert.equal(step.mode, "create");
    assert.equal(metaOf(step.body).uid, undefined);
    assert.equal(metaOf(step.body).resourceVersion, "18446744073709551615");
    assert.equal(metaOf(step.body).annotations?.["internal.kro.run/creation-key"], KEY);
  });
  it("a hand-made look-alike in the cache does not make a child ours: still create-only (the server refuses)", () => {
    const step = only(plan([], { a: live("a", "user-uid", { labels: { "kro.run/instance-id": "inst-uid" } }) }));
    assert.equal(step.mode, "create");
    assert.equal(metaOf(step.body).resourceVersion, "18446744073709551615");
  });
  it("a recorded child is written under its recorded UID", () => {
    const step = only(plan([entry("a", "uid-a")], {}, false));
    assert.equal(step.mode, "update");
    assert.equal(metaOf(step.body).uid, "uid-a");
  });
  it("a recorded child that is up to date costs nothing, and stays recorded (skipping is not forgetting)", () => {
    assert.deepEqual(plan([entry("a", "uid-a")], { a: live("a", "uid-a") }), []);
  });
  it("a stale cache showing another UID at a recorded identity is written guarded, never skipped as up to date", () => {
    const step = only(plan([entry("a", "uid-a")], { a: live("a", "someone-else") }));
    assert.equal(metaOf(step.body).uid, "uid-a");
  });
  it("an adopted child is written under its UID without our creation key", () => {
    const step = only(plan([entry("a", "uid-a", "adopted")], {}, false));
    assert.equal(step.mode, "adopt");
    assert.equal(metaOf(step.body).annotations?.["internal.kro.run/creation-key"], undefined);
  });
  it("a child this reconcile already wrote is written again only when its desired state changed since", () => {
    const input = (settled: (key: string, desired: KubeJson) => boolean) =>
      planApplies({
        desired: [desired("a")],
        inventory: { key: KEY, entries: [entry("a", "uid-a")] },
        cached: () => undefined,
        upToDate: () => false,
        settled,
      });
    assert.deepEqual(
      input(() => true),
      [],
    );
    const seen: string[] = [];
    assert.equal(
      only(
        input((key) => {
          seen.push(key);
          return false;
        }),
      ).mode,
      "update",
    );
    assert.equal(seen.length, 1, "asked once, by the child's identity key");
  });
});

describe("reading an apply round", () => {
  const create = only(plan([], {}));
  const update = only(plan([entry("a", "uid-a")], {}, false));
  it("a created child is recorded under the server's UID", () => {
    const outcome = readApplyOutcome(create, { status: "fulfilled", value: live("a", "server-uid") });
    assert.equal(outcome.kind === "written" ? outcome.record?.uid : undefined, "server-uid");
  });
  it("a recorded child deleted behind our back is re-created and re-recorded", () => {
    const outcome = readApplyOutcome(update, { status: "fulfilled", value: live("a", "uid-new") });
    assert.equal(outcome.kind === "written" ? outcome.record?.uid : undefined, "uid-new");
  });
  it("a guard refusal means: read the live object; for a recorded child, forget the old UID", () => {
    const conflict = Object.assign(new Error("Precondition failed: UID in precondition"), { status: 409 });
    assert.deepEqual(readApplyOutcome(create, { status: "rejected", reason: conflict }), { kind: "exists" });
    assert.deepEqual(readApplyOutcome(update, { status: "rejected", reason: conflict }), {
      kind: "exists",
      forgetUid: "uid-a",
    });
    assert.equal(
      isUidGuardRefusal(Object.assign(new Error("metadata.uid: field is immutable"), { status: 422 })),
      true,
    );
    assert.equal(isUidGuardRefusal(Object.assign(new Error("spec.replicas: Invalid value"), { status: 422 })), false);
  });
  it("other failures are reported as they are", () => {
    const reason = Object.assign(new Error("forbidden"), { status: 403 });
    const outcome = readApplyOutcome(create, { status: "rejected", reason });
    assert.deepEqual(
      outcome,
      { kind: "failed", message: "forbidden", cause: reason },
      "the error itself is kept: was it the server's (an outage) or the request's?",
    );
  });
});

describe("judging an object that already exists", () => {
  const step = only(plan([], {}));
  const inventory = { key: KEY, entries: [] };
  const ours = { labels: { "kro.run/instance-id": "inst-uid" }, annotations: { "internal.kro.run/creation-key": KEY } };
  it("created by us, then a crash before the record: recorded (crash replay)", () => {
    assert.deepEqual(judgeExisting(step, live("a", "u1", ours), owner, inventory, "never"), {
      kind: "record",
      entry: entry("a", "u1"),
    });
  });
  it("a hand-made object is never written without the opt-in, and the message names it and the opt-in", () => {
    const decision = judgeExisting(step, live("a", "u1"), owner, inventory, "never");
    assert.match(
      decision.kind === "conflict" ? decision.message : decision.kind,
      /ConfigMap ns\/a already exists and was not created by this instance.*kro\.run\/adopt=true/,
    );
  });
  it("a look-alike with our labels copied but not our creation key is foreign", () => {
    const copied = {
      labels: {
        "kro.run/instance-id": "inst-uid",
        "kro.run/instance-name": "web",
        "kro.run/instance-kind": "WebApp",
        "kro.run/instance-group": "kro.run",
        "kro.run/instance-namespace": "ns",
      },
    };
    assert.equal(judgeExisting(step, live("a", "u1", copied), owner, inventory, "never").kind, "conflict");
    assert.equal(
      judgeExisting(
        step,
        live("a", "u1", { ...copied, annotations: { "internal.kro.run/creation-key": "another-key" } }),
        owner,
        inventory,
        "never",
      ).kind,
      "conflict",
    );
  });
  it("with the opt-in, a foreign object is adopted under its live UID and recorded as adopted", () => {
    assert.deepEqual(judgeExisting(step, live("a", "u1"), owner, inventory, "adopt-and-release"), {
      kind: "adopt",
      entry: entry("a", "u1", "adopted"),
    });
  });
  it("another instance's child is never taken over, even with the opt-in", () => {
    const theirs = {
      labels: {
        "kro.run/instance-id": "other-uid",
        "kro.run/instance-name": "other",
        "kro.run/instance-kind": "WebApp",
        "kro.run/instance-group": "kro.run",
        "kro.run/instance-namespace": "ns",
      },
    };
    const decision = judgeExisting(step, live("a", "u1", theirs), owner, inventory, "adopt-and-delete");
    assert.match(
      decision.kind === "conflict" ? decision.message : "",
      /belongs to another instance \(WebApp\.kro\.run ns\/other\)/,
    );
  });
  it("gone again before the read: retried next round", () => {
    assert.deepEqual(judgeExisting(step, undefined, owner, inventory, "never"), { kind: "retry" });
  });
  it("the opt-in reads the instance's annotation only as the documented values", () => {
    assert.equal(adoptionPolicy(undefined, undefined), "never");
    assert.equal(adoptionPolicy("true", undefined), "adopt-and-release");
    assert.equal(adoptionPolicy(" Delete ", undefined), "adopt-and-delete");
    assert.equal(adoptionPolicy("yes", undefined), "never");
  });
});
