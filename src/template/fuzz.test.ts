// A bounded fuzz run (a few seconds) of the template engine and Sprig over instance-controlled
// values; the long run, heap-limited, is `npm run fuzz -- --minutes N` (scripts/fuzz.mjs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fuzzTemplates } from "../../test/unit-support/template/fuzz.js";
import { parseTemplate, renderTemplate } from "./index.js";

describe("fuzz: template engine and Sprig with hostile values", () => {
  // A fixed seed: the suite must give the same answer on every run (a wall-clock stall is judged
  // here). Exploration with fresh seeds is `npm run fuzz`; KRO_FUZZ_SEED replays one it found.
  const seed = Number(process.env.KRO_FUZZ_SEED ?? 20_261_202);
  it(`every render ends in a string or a TemplateError, within its deadline (seed ${seed})`, () => {
    const result = fuzzTemplates({ numRuns: 150, seed });
    assert.equal(result.iterations, 150);
    assert.deepEqual(result.crashes.slice(0, 3), []);
  });

  it("found: toDecimal of a negative octal threw a SyntaxError (BigInt takes no sign on 0o); Go's ParseInt(s, 8, 64) gives -1 and -15", () => {
    assert.equal(
      renderTemplate(
        parseTemplate(
          "t",
          `{{ -1 | toDecimal }} {{ "-17" | toDecimal }} {{ "+17" | toDecimal }} {{ "-8" | toDecimal }}`,
        ),
        {},
      ),
      "-1 -15 15 0",
    );
  });
});
