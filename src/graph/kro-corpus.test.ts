// Every RGD of the kro compatibility corpus gets kro's verdict: accepted ones compile to the
// recorded CRD (test/golden/kro-corpus/), rejected ones fail with an error about the same cause.
// Each fixture's header names the kro source the expectation comes from.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { CORPUS_GOLDEN_DIR, compileCorpusCase, corpusCases } from "../../test/unit-support/graph/kro-corpus.js";

const cases = corpusCases();

describe("kro compatibility corpus", () => {
  it("holds the corpus (accepted and rejected RGDs, each citing kro's source)", () => {
    assert.ok(cases.length >= 150, `only ${cases.length} corpus RGDs`);
    assert.ok(cases.filter((c) => c.expect === "reject").length >= 55);
    for (const c of cases) assert.match(c.kro, /\S/, `${c.name}: "# kro:" names no source`);
  });

  for (const c of cases) {
    it(`${c.name}: ${c.expect}${c.error ? ` (${c.error})` : ""}`, () => {
      const outcome = compileCorpusCase(c);
      const errors = outcome.issues.filter((i) => i.severity === "error").map((i) => i.message);
      const warnings = outcome.issues.filter((i) => i.severity === "warning").map((i) => i.message);
      if (c.expect === "accept") {
        assert.equal(outcome.accepted, true, errors.join("\n"));
        const recorded = readFileSync(new URL(`${c.name}.crd.yaml`, CORPUS_GOLDEN_DIR), "utf8");
        assert.equal(
          outcome.crdYaml,
          recorded,
          `${c.name}: the CRD differs from test/golden/kro-corpus/; if intended, run npm run refresh:golden`,
        );
      } else {
        assert.equal(outcome.accepted, false, `${c.name} compiled but kro rejects it`);
        assert.ok(
          errors.some((m) => m.includes(c.error ?? "")),
          `no error mentions ${JSON.stringify(c.error)}:\n${errors.join("\n")}`,
        );
      }
      if (c.warning !== undefined)
        assert.ok(
          warnings.some((m) => m.includes(c.warning ?? "")),
          `no warning mentions ${JSON.stringify(c.warning)}: ${warnings.join("; ")}`,
        );
    });
  }
});
