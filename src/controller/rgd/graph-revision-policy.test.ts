import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../kube/index.js";
import type { GraphRevision } from "../../api/index.js";
import {
  canonicalJson,
  fnv1a,
  graphRevisionName,
  graphSpecHash,
  isOwnedBy,
  lastIssuedRevision,
  newGraphRevision,
  revisionFor,
  revisionSet,
  revisionsToPrune,
  snapshotRgd,
  withRgdOwner,
} from "./graph-revision-policy.js";

const SPEC = {
  schema: { apiVersion: "v1alpha1", kind: "WebApp", spec: { name: "string" } },
  resources: [{ id: "cm", template: { kind: "ConfigMap" } }],
};

function gr(
  rgdName: string,
  revision: number,
  spec: unknown = SPEC,
  extra: { deleting?: boolean; owner?: string } = {},
): KubeObject & GraphRevision {
  return {
    apiVersion: "internal.kro.run/v1alpha1",
    kind: "GraphRevision",
    metadata: {
      name: graphRevisionName(rgdName, revision),
      ...(extra.deleting === true ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
      ...(extra.owner === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: "kro.run/v1alpha1",
                kind: "ResourceGraphDefinition",
                name: rgdName,
                uid: extra.owner,
                controller: true,
              },
            ],
          }),
    },
    spec: { revision, snapshot: { name: rgdName, generation: revision, spec: spec as Record<string, unknown> } },
  };
}

describe("graphRevisionName", () => {
  it("is <rgd>-r<five digits>, like kro's", () => {
    assert.equal(graphRevisionName("webapp", 1), "webapp-r00001");
    assert.equal(graphRevisionName("webapp", 42), "webapp-r00042");
    assert.equal(graphRevisionName("webapp", 123456), "webapp-r123456");
  });
  it("cuts a name that would pass 253 characters and adds the FNV-32a of the full name", () => {
    const long = "a".repeat(250);
    const name = graphRevisionName(long, 7);
    assert.equal(name.length, 253);
    assert.ok(name.endsWith(`-r00007-${fnv1a(long, 32)}`), name);
    assert.notEqual(graphRevisionName(`${"a".repeat(249)}b`, 7), name, "two long names with one prefix still differ");
    assert.equal(graphRevisionName("a".repeat(246), 7), `${"a".repeat(246)}-r00007`, "exactly 253 is not cut");
  });
  it("never leaves a dot or dash before the suffix, nor an empty prefix", () => {
    const dotted = `${"a".repeat(234)}.${"-".repeat(30)}`;
    assert.match(graphRevisionName(dotted, 1), /^a{234}-r00001-[0-9a-f]{8}$/);
    assert.match(graphRevisionName(".".repeat(253), 1), /^gr-r00001-[0-9a-f]{8}$/);
  });
});

describe("fnv1a", () => {
  it("matches the published FNV-1a test vectors (Go's hash/fnv)", () => {
    assert.equal(fnv1a("", 32), "811c9dc5");
    assert.equal(fnv1a("a", 32), "e40c292c");
    assert.equal(fnv1a("foobar", 32), "bf9cf968");
    assert.equal(fnv1a("", 64), "cbf29ce484222325");
    assert.equal(fnv1a("a", 64), "af63dc4c8601ec8c");
    assert.equal(fnv1a("foobar", 64), "85944171f73967e8");
  });
});

describe("graphSpecHash", () => {
  it("ignores key order but not list order or values", () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
    assert.equal(graphSpecHash({ a: 1, b: { c: 2, d: 3 } }), graphSpecHash({ b: { d: 3, c: 2 }, a: 1 }));
    assert.notEqual(graphSpecHash({ a: [1, 2] }), graphSpecHash({ a: [2, 1] }));
    assert.notEqual(graphSpecHash({ a: "1" }), graphSpecHash({ a: 1 }));
    assert.match(graphSpecHash(SPEC), /^[0-9a-f]{16}$/, "a valid label value");
  });
  it("leaves spec.rollout out, and hashes a spec without one exactly as before", () => {
    assert.equal(graphSpecHash(SPEC), fnv1a(canonicalJson(SPEC), 64));
    assert.equal(graphSpecHash({ ...SPEC, rollout: { maxUpdating: 2 } }), graphSpecHash(SPEC));
    assert.equal(
      graphSpecHash({ ...SPEC, rollout: { maxUpdating: 2 } }),
      graphSpecHash({ ...SPEC, rollout: { maxUpdating: 5, onFailure: "Rollback" } }),
    );
    assert.deepEqual(
      revisionFor(
        revisionSet([gr("web", 1, { ...SPEC, rollout: { maxUpdating: 1 } })], "web"),
        { ...SPEC, rollout: {} },
        1,
      ),
      { revision: 1, issue: false },
      "a policy change issues no revision",
    );
  });
});

describe("revisionSet and revisionFor", () => {
  it("keeps only well-formed revisions of this RGD, newest first, and counts terminating ones in the high-water mark", () => {
    const foreign = gr("other", 9);
    const malformed = { ...gr("web", 8), spec: { revision: "8", snapshot: { name: "web", spec: {} } } };
    const zero = gr("web", 0);
    const set = revisionSet(
      [
        gr("web", 2),
        foreign,
        gr("web", 5, SPEC, { deleting: true }),
        malformed,
        zero,
        gr("web", 3),
        { apiVersion: "v1", kind: "ConfigMap" },
      ],
      "web",
    );
    assert.deepEqual(
      set.live.map((r) => r.spec.revision),
      [3, 2],
    );
    assert.equal(set.highest, 5);
  });
  it("reuses the newest revision when its snapshot is the current spec (key order aside)", () => {
    const reordered = {
      resources: SPEC.resources,
      schema: { spec: { name: "string" }, kind: "WebApp", apiVersion: "v1alpha1" },
    };
    assert.deepEqual(revisionFor(revisionSet([gr("web", 1, {}), gr("web", 2)], "web"), reordered, 2), {
      revision: 2,
      issue: false,
    });
  });
  it("issues a new number above every number ever used: live, terminating and status.lastIssuedRevision", () => {
    const changed = { ...SPEC, resources: [] };
    assert.deepEqual(revisionFor(revisionSet([], "web"), SPEC, 0), { revision: 1, issue: true });
    assert.deepEqual(revisionFor(revisionSet([gr("web", 2)], "web"), changed, 0), { revision: 3, issue: true });
    assert.deepEqual(
      revisionFor(revisionSet([gr("web", 2), gr("web", 4, SPEC, { deleting: true })], "web"), changed, 0),
      { revision: 5, issue: true },
    );
    assert.deepEqual(
      revisionFor(revisionSet([gr("web", 2)], "web"), changed, 9),
      { revision: 10, issue: true },
      "retention deleted 3..9",
    );
  });
  it("issues a new revision for a revert (history points are not content-addressed)", () => {
    const b = { ...SPEC, resources: [] };
    assert.deepEqual(revisionFor(revisionSet([gr("web", 1), gr("web", 2, b)], "web"), SPEC, 2), {
      revision: 3,
      issue: true,
    });
  });
});

describe("revisionsToPrune", () => {
  const live = [1, 2, 3, 4, 5, 6, 7].map((n) => gr("web", n));
  const numbers = (list: readonly GraphRevision[]) => list.map((r) => r.spec.revision);
  it("keeps the newest max revisions", () => {
    assert.deepEqual(numbers(revisionsToPrune(live, 5, 7)), [2, 1]);
    assert.deepEqual(numbers(revisionsToPrune(live, 1, 7)), [6, 5, 4, 3, 2, 1]);
    assert.deepEqual(numbers(revisionsToPrune(live.slice(0, 3), 5, 3)), []);
  });
  it("never deletes the revision being served, however old", () => {
    assert.deepEqual(numbers(revisionsToPrune(live, 2, 1)), [5, 4, 3, 2]);
  });
  it("never deletes a revision instances are assigned, run or are pinned to", () => {
    assert.deepEqual(numbers(revisionsToPrune(live, 2, 7, new Set([1, 4]))), [5, 3, 2]);
  });
  it("keeps everything when max is 0 or negative", () => {
    assert.deepEqual(revisionsToPrune(live, 0, undefined), []);
    assert.deepEqual(revisionsToPrune(live, -1, undefined), []);
  });
});

describe("ownership and snapshot objects", () => {
  it("reads status.lastIssuedRevision defensively", () => {
    assert.equal(lastIssuedRevision({ status: { lastIssuedRevision: 4 } }), 4);
    for (const status of [
      undefined,
      {},
      { lastIssuedRevision: "4" },
      { lastIssuedRevision: -1 },
      { lastIssuedRevision: 1.5 },
    ])
      assert.equal(lastIssuedRevision({ status }), 0);
  });
  it("tells a revision of this RGD object from one of a deleted RGD of the same name, and re-points it", () => {
    const old = gr("web", 1, SPEC, { owner: "old-uid" });
    assert.equal(isOwnedBy(old, "old-uid"), true);
    assert.equal(isOwnedBy(old, "new-uid"), false);
    const desired = {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      name: "web",
      uid: "new-uid",
      controller: true,
    };
    const other = { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "cm" };
    assert.deepEqual(withRgdOwner([other, ...(old.metadata.ownerReferences ?? [])], desired), [other, desired]);
    assert.deepEqual(withRgdOwner(undefined, desired), [desired]);
  });
  it("builds a revision as kro does: name, labels, controller owner reference, verbatim spec", () => {
    const rgd = {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "web", uid: "u1", generation: 3 },
      spec: SPEC,
    };
    const revision = newGraphRevision(rgd, 2, "0.1.0");
    assert.equal(revision.metadata.name, "web-r00002");
    assert.deepEqual(revision.metadata.labels, {
      "kro.run/owned": "true",
      "kro.run/kro-version": "0.1.0",
      "kro.run/resource-graph-definition-name": "web",
      "kro.run/graph-revision-hash": graphSpecHash(SPEC),
    });
    assert.deepEqual(revision.metadata.ownerReferences, [
      { apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name: "web", uid: "u1", controller: true },
    ]);
    assert.deepEqual(revision.spec, { revision: 2, snapshot: { name: "web", generation: 3, spec: SPEC } });
    const again = snapshotRgd(
      { ...rgd, metadata: { ...rgd.metadata, generation: 9 }, spec: { broken: true } },
      revision,
    );
    assert.deepEqual(again, {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "web", uid: "u1", generation: 3 },
      spec: SPEC,
    });
  });
});
