// Golden tests: test/data/template/golden-cases.ts rendered by real Go (text/template + Sprig +
// Helm's toYaml), recorded in test/data/template/golden.json by
// scripts/refresh-template-golden.mjs; ours must match.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { goldenCases } from "../../test/data/template/golden-cases.js";
import { parseTemplate, renderTemplate, TemplateError } from "./index.js";

interface Expected {
  readonly out?: string;
  readonly err?: string;
}
const golden = JSON.parse(
  readFileSync(new URL("../../../test/data/template/golden.json", import.meta.url), "utf8"),
) as { cases: { t: string }[]; results: Expected[] };

function ours(c: (typeof goldenCases)[number]): Expected {
  try {
    const t = parseTemplate("t", c.t);
    return {
      out: renderTemplate(t, c.data ?? {}, { missingKey: c.missingKey ?? "default", integers: c.integers ?? "int64" }),
    };
  } catch (e) {
    assert.ok(e instanceof TemplateError, `non-TemplateError thrown: ${String(e)}`);
    return { err: e.message };
  }
}

describe("golden: Go text/template + Sprig", () => {
  it("golden file matches the case list", () => {
    assert.deepEqual(
      golden.cases.map((c) => c.t),
      goldenCases.map((c) => c.t),
    );
  });
  for (const [i, c] of goldenCases.entries()) {
    it(`#${i} ${JSON.stringify(c.t).slice(0, 70)}`, () => {
      assert.deepEqual(ours(c), golden.results[i]);
    });
  }
});
