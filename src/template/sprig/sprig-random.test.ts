// Random functions are charged per draw: each is a cipher read and a rejection sample (~25 µs),
// so an uncharged `shuffle` of a tenant's 1 MB string ran 18 s past a 2 s deadline.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededEntropy, type Entropy } from "./entropy.js";
import { parseTemplate, renderTemplate } from "../index.js";

const NOW = 1_764_560_000n * 1_000_000_000n;
const render = (t: string, data: unknown = {}, entropy: Entropy = seededEntropy(["s"], NOW)): string =>
  renderTemplate(parseTemplate("t", t), data, { entropy });

/** A source that counts the reads of every stream forked from it. */
function counting(inner: Entropy, reads = { n: 0 }): Entropy & { reads: { n: number } } {
  return {
    ...inner,
    read: (out) => {
      reads.n++;
      inner.read(out);
    },
    fork: (label) => counting(inner.fork(label), reads),
    reads,
  };
}
const isBudget = (pattern: RegExp) => (e: Error & { kind?: string }) => e.kind === "budget" && pattern.test(e.message);

describe("random functions and the work budget", () => {
  it("shuffle of a huge string is refused before it starts, naming the size; a short one still shuffles", () => {
    const entropy = counting(seededEntropy(["s"], NOW));
    assert.throws(
      () => render("{{ shuffle .s }}", { s: "x".repeat(1_000_000) }, entropy),
      isBudget(/shuffle of 1000000 characters exceeds the render's work budget/),
    );
    assert.equal(entropy.reads.n, 0, "refused up front, before a single draw");
    const out = render('{{ shuffle "abcdef" }}');
    assert.deepEqual(Array.from(out).sort().join(""), "abcdef");
  });

  it("randAlphaNum is charged per character: a few thousand pass, millions are refused", () => {
    assert.equal(render("{{ randAlphaNum 4096 | len }}"), "4096");
    assert.throws(
      () => render("{{ randAlphaNum 4000000 }}"),
      isBudget(/a random string of 4000000 characters exceeds/),
    );
  });
});
