// Random functions are charged per draw: each is a cipher read and a rejection sample (~25 µs),
// so an uncharged `shuffle` of a tenant's 1 MB string ran 18 s past a 2 s deadline.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededEntropy } from "./entropy.js";
import { parseTemplate, renderTemplate } from "../index.js";

const NOW = 1_764_560_000n * 1_000_000_000n;
const render = (t: string, data: unknown = {}): string => renderTemplate(parseTemplate("t", t), data, { entropy: seededEntropy(["s"], NOW) });
const isBudget = (pattern: RegExp) => (e: Error & { kind?: string }) => e.kind === "budget" && pattern.test(e.message);

describe("random functions and the work budget", () => {
  it("shuffle of a huge string is refused before it starts, naming the size; a short one still shuffles", () => {
    const started = performance.now();
    assert.throws(() => render("{{ shuffle .s }}", { s: "x".repeat(1_000_000) }), isBudget(/shuffle of 1000000 characters exceeds the render's work budget/));
    assert.ok(performance.now() - started < 1000, "refused up front, not after the work");
    const out = render("{{ shuffle \"abcdef\" }}");
    assert.deepEqual(Array.from(out).sort().join(""), "abcdef");
  });

  it("randAlphaNum is charged per character: a few thousand pass, millions are refused", () => {
    assert.equal(render("{{ randAlphaNum 4096 | len }}"), "4096");
    assert.throws(() => render("{{ randAlphaNum 4000000 }}"), isBudget(/a random string of 4000000 characters exceeds/));
  });
});
