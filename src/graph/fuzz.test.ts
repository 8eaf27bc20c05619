// A bounded fuzz run (a few seconds) of the YAML reader and the compiler; the long run is
// `npm run fuzz -- --minutes N` (scripts/fuzz.mjs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fuzzCompiler } from "../../test/unit-support/graph/fuzz.js";

describe("fuzz: YAML reader and compiler over mutated fixtures", () => {
  it("never throws, and every YAML problem is located", () => {
    const result = fuzzCompiler({ numRuns: 200 });
    assert.ok(result.iterations >= 200, `${result.iterations} iterations`);
    assert.deepEqual(result.crashes.slice(0, 3), []);
  });
});
