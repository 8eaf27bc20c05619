import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { labelMatches, labelValue, MAX_LABEL_VALUE_LENGTH } from "./label-value.js";

const VALID = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe("labelValue", () => {
  it("keeps valid values as they are", () => {
    for (const v of ["", "web", "a.b-c_d", "x".repeat(63)]) assert.equal(labelValue(v), v);
  });
  it("shortens a long name to a readable prefix and a hash, deterministically", () => {
    const name = `my-app-${"x".repeat(200)}`;
    const short = labelValue(name);
    assert.equal(short.length, MAX_LABEL_VALUE_LENGTH);
    assert.match(short, /^my-app-x+-[0-9a-f]{10}$/);
    assert.equal(labelValue(name), short);
    assert.notEqual(labelValue(`${name}y`), short, "names sharing the prefix differ by hash");
    assert.ok(labelMatches(short, name));
    assert.ok(!labelMatches(short, `${name}y`));
  });
  it("always yields a valid label value (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const v = labelValue(s);
        return v.length <= MAX_LABEL_VALUE_LENGTH && VALID.test(v) && labelValue(s) === v;
      }),
      { numRuns: 2000 },
    );
  });
});
