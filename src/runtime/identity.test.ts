import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cartesianProduct } from "./for-each.js";
import { identityKey, matchesQuery, matchesSelector } from "./identity.js";
import { createMemoryLookup } from "./memory-lookup.js";

describe("matchesSelector", () => {
  const labels = { app: "web", tier: "front" };
  const cases: [string, Parameters<typeof matchesSelector>[1], boolean][] = [
    ["empty selects everything", { matchLabels: {} }, true],
    ["equal labels", { matchLabels: { app: "web" } }, true],
    ["different value", { matchLabels: { app: "db" } }, false],
    ["In", { matchLabels: {}, matchExpressions: [{ key: "tier", operator: "In", values: ["front", "back"] }] }, true],
    [
      "In without the key",
      { matchLabels: {}, matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] },
      false,
    ],
    ["NotIn", { matchLabels: {}, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["front"] }] }, false],
    [
      "NotIn without the key",
      { matchLabels: {}, matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] },
      true,
    ],
    ["Exists", { matchLabels: {}, matchExpressions: [{ key: "app", operator: "Exists" }] }, true],
    ["DoesNotExist", { matchLabels: {}, matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, false],
  ];
  for (const [name, selector, expected] of cases)
    it(name, () => {
      assert.equal(matchesSelector(labels, selector), expected);
    });
});

describe("identities and the memory lookup", () => {
  it("one object across versions of a group; namespaces and kinds distinguish", () => {
    assert.equal(
      identityKey({ apiVersion: "apps/v1", kind: "Deployment", name: "a", namespace: "n" }),
      identityKey({ apiVersion: "apps/v1beta1", kind: "Deployment", name: "a", namespace: "n" }),
    );
    assert.notEqual(
      identityKey({ apiVersion: "v1", kind: "ConfigMap", name: "a", namespace: "n" }),
      identityKey({ apiVersion: "v1", kind: "ConfigMap", name: "a", namespace: "m" }),
    );
  });

  it("lists by kind, namespace (absent = all) and labels", () => {
    const cm = (name: string, namespace: string, labels: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace, labels },
    });
    const lookup = createMemoryLookup([
      cm("a", "x", { team: "blue" }),
      cm("b", "y", { team: "blue" }),
      cm("c", "x", { team: "red" }),
      { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "x", labels: { team: "blue" } } },
    ]);
    const names = (namespace?: string) =>
      lookup
        .list({
          apiVersion: "v1",
          kind: "ConfigMap",
          matchLabels: { team: "blue" },
          ...(namespace === undefined ? {} : { namespace }),
        })
        .map((o) => (o.metadata as { name: string }).name);
    assert.deepEqual(names(), ["a", "b"]);
    assert.deepEqual(names("x"), ["a"]);
    assert.equal(lookup.get({ apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "x" }) !== undefined, true);
    assert.equal(lookup.get({ apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "y" }), undefined);
    assert.equal(
      matchesQuery(
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "q" } },
        { apiVersion: "v1", kind: "Secret", matchLabels: {} },
      ),
      false,
    );
  });
});

describe("cartesianProduct", () => {
  it("first dimension outermost", () => {
    const product = cartesianProduct([
      { name: "a", values: [1, 2] },
      { name: "b", values: ["x", "y"] },
    ]);
    assert.deepEqual(product, {
      ok: true,
      items: [
        { a: 1, b: "x" },
        { a: 1, b: "y" },
        { a: 2, b: "x" },
        { a: 2, b: "y" },
      ],
    });
  });
  it("any empty dimension gives no items, even past the size limit", () => {
    assert.deepEqual(
      cartesianProduct(
        [
          { name: "a", values: [1, 2, 3] },
          { name: "b", values: [] },
        ],
        { maxCollectionSize: 1 },
      ),
      { ok: true, items: [] },
    );
  });
  it("limits are checked before building anything", () => {
    const big = Array.from({ length: 100 }, (_, i) => i);
    const product = cartesianProduct([
      { name: "a", values: big },
      { name: "b", values: big },
      { name: "c", values: big },
    ]);
    assert.deepEqual(product, {
      ok: false,
      error: "forEach produces 1000000 items (a: 100 × b: 100 × c: 100); the limit is 1000",
    });
    assert.equal(
      cartesianProduct(
        [
          { name: "a", values: [1] },
          { name: "b", values: [1] },
        ],
        { maxCollectionDimensions: 1 },
      ).ok,
      false,
    );
  });
});
