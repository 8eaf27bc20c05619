import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { coversMask, describeMask, maskOfPath, mergeMasks, projectJson, templateMask } from "./field-mask.js";

describe("field masks", () => {
  const spec = maskOfPath(["spec", "replicas"]);
  const status = maskOfPath(["status"]);

  it("merges paths; a whole value absorbs any path below it", () => {
    assert.deepEqual(describeMask(mergeMasks(spec, status)), { spec: { replicas: true }, status: true });
    assert.deepEqual(describeMask(mergeMasks(spec, maskOfPath(["spec"]))), { spec: true });
    assert.equal(mergeMasks(spec, true), true);
  });

  it("covers: a wider mask covers a narrower one, never the reverse", () => {
    const wide = mergeMasks(spec, status);
    assert.equal(coversMask(wide, spec), true);
    assert.equal(coversMask(spec, wide), false);
    assert.equal(coversMask(maskOfPath(["spec"]), spec), true);
    assert.equal(coversMask(spec, maskOfPath(["spec"])), false);
    assert.equal(coversMask(true, wide), true);
    assert.equal(coversMask(wide, true), false);
  });

  it("projects objects on the mask, keeps lists and scalars whole, returns the same object when nothing goes", () => {
    const object = {
      spec: { replicas: 2, strategy: { type: "RollingUpdate" } },
      status: { ready: [1, 2] },
      extra: "x",
    };
    assert.deepEqual(projectJson(object, mergeMasks(spec, status)), {
      spec: { replicas: 2 },
      status: { ready: [1, 2] },
    });
    const kept = { spec: { replicas: 1 } };
    assert.equal(projectJson(kept, spec), kept);
    assert.deepEqual(projectJson({ spec: [1, 2] }, spec), { spec: [1, 2] });
  });

  it("treats a __proto__ key as data", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "spec": {}}') as Record<string, unknown>;
    const projected = projectJson(hostile, mergeMasks(maskOfPath(["__proto__"]), maskOfPath(["x"])));
    assert.equal(Object.getPrototypeOf(projected), Object.prototype);
    assert.deepEqual(Object.keys(projected), ["__proto__"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("templateMask follows nested objects and keeps anything else whole", () => {
    assert.deepEqual(describeMask(templateMask({ a: { b: "${x}", c: [1] }, d: 1 })), {
      a: { b: true, c: true },
      d: true,
    });
  });
});
