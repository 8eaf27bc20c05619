// Helm golden tests: test/data/template/helm-golden-cases.ts rendered by Helm 3.18.6's engine
// (go/template-oracle, recorded in test/data/template/helm-golden.json by
// scripts/refresh-template-golden.mjs); ours must match.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { helmGoldenCases } from "../../../test/data/template/helm-golden-cases.js";
import { renderHelmCase, type HelmExpected } from "../../../test/data/template/helm-golden-support.js";

const golden = JSON.parse(
  readFileSync(new URL("../../../../test/data/template/helm-golden.json", import.meta.url), "utf8"),
) as { cases: unknown[]; results: HelmExpected[] };

describe("golden: Helm 3.18.6 engine + Sprig", () => {
  it("golden file matches the case list", () => {
    assert.deepEqual(golden.cases, JSON.parse(JSON.stringify(helmGoldenCases)));
  });
  for (const [i, c] of helmGoldenCases.entries()) {
    const label = JSON.stringify(Object.values(c.templates)[0] ?? "").slice(0, 70);
    it(`#${i} ${label}`, () => {
      assert.deepEqual(renderHelmCase(c), golden.results[i]);
    });
  }
});
