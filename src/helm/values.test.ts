import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { coalesce, dependencyEnabled } from "./values.js";

describe("Helm's values coalescing", () => {
  it("merges maps, replaces lists and scalars, and deletes a key given null", () => {
    const base = { image: { repository: "nginx", tag: "1" }, ports: [1, 2], keep: "x", drop: { a: 1 } };
    assert.deepEqual(coalesce(base, { image: { tag: "2" }, ports: [3], drop: null }), {
      image: { repository: "nginx", tag: "2" },
      ports: [3],
      keep: "x",
    });
  });
  it("keeps a null Helm has no default for (only a default is removed by null), at every depth", () => {
    const base = { resources: { limits: { cpu: "100m" } }, podAnnotations: {} };
    assert.deepEqual(
      coalesce(base, { resources: { limits: { cpu: null, memory: "1Gi" } }, podAnnotations: { a: null }, extra: null }),
      { resources: { limits: { memory: "1Gi" } }, podAnnotations: { a: null }, extra: null },
    );
  });
  it("never changes its inputs", () => {
    const base = { a: { b: 1 } };
    coalesce(base, { a: { b: 2 } });
    assert.deepEqual(base, { a: { b: 1 } });
  });
});

describe("dependency condition: and tags:", () => {
  const dep = { name: "db", condition: "db.enabled,global.db", tags: ["backend"], importValues: [] };
  const table: [string, Record<string, unknown>, boolean][] = [
    ["enabled when nothing says otherwise", {}, true],
    ["the first condition path holding a bool decides", { db: { enabled: false }, global: { db: true } }, false],
    ["a later path decides when the first is missing", { global: { db: false } }, false],
    ["a non-bool condition value is skipped", { db: { enabled: "no" }, tags: { backend: false } }, false],
    ["a tag set false disables", { tags: { backend: false } }, false],
    ["the condition wins over tags", { tags: { backend: false }, db: { enabled: true } }, true],
  ];
  for (const [name, values, want] of table) {
    it(name, () => {
      assert.equal(dependencyEnabled(dep, values, values), want);
    });
  }
  it("any true tag enables even when another is false", () => {
    assert.equal(
      dependencyEnabled({ name: "x", tags: ["a", "b"], importValues: [] }, {}, { tags: { a: false, b: true } }),
      true,
    );
  });
});
