// Differential tests: every case in test/data/template/differential-cases.ts runs through this
// engine and through Go's own text/template compiled to WASM (@evertdespiegeleer/go-template, a
// dev dependency).
// The oracle runs templates named "tpl" with missingkey=error on JSON-decoded data (float64
// numbers) and without Sprig, so the cases use the same settings. Output, or the full Go error
// message, must be identical.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { parse } from "@evertdespiegeleer/go-template";
import { differentialCases } from "../../../test/data/template/differential-cases.js";
import { parseTemplate, renderTemplate, TemplateError } from "../index.js";

type Render = (template: string, json: string) => string;

function ours(text: string, data: unknown): string {
  try {
    return renderTemplate(parseTemplate("tpl", text, { sprig: false }), data, {
      missingKey: "error",
      integers: "float64",
    });
  } catch (e) {
    assert.ok(e instanceof TemplateError, `non-TemplateError thrown: ${String(e)}`);
    return `${e.kind === "parse" ? "Template parse error" : "Template exec error"}: ${e.message}`;
  }
}

describe("differential: Go text/template (WASM oracle)", () => {
  let render: Render;
  before(async () => {
    await parse("", {}); // instantiates the WASM module, which registers globalThis.Render
    render = (globalThis as unknown as { Render: Render }).Render;
  });

  it("has at least 300 cases", () => {
    assert.ok(differentialCases.length >= 300, `only ${differentialCases.length} cases`);
  });

  for (const [i, c] of differentialCases.entries()) {
    it(`#${i} ${JSON.stringify(c.t).slice(0, 70)}`, () => {
      const data = c.data ?? {};
      assert.equal(ours(c.t, data), render(c.t, JSON.stringify(data)));
    });
  }
});
