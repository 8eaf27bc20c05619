// Property tests: on arbitrary input the parser either returns a template or throws a
// TemplateError — never another exception, never a hang — and errors carry sane positions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseTemplate, renderTemplate, TemplateError } from "../index.js";

const pieces = [
  "{{",
  "}}",
  "{{-",
  "-}}",
  " ",
  "\n",
  ".",
  "$",
  "$x",
  ":=",
  "=",
  "|",
  "(",
  ")",
  '"',
  "`",
  "'",
  "a",
  "1",
  "-",
  "if",
  "else",
  "end",
  "range",
  "with",
  "define",
  "template",
  "block",
  "break",
  "continue",
  "nil",
  "true",
  ".a",
  ".b.c",
  "len",
  "printf",
  "/*",
  "*/",
  "0x",
  "1e",
  "é",
  "\\",
  ",",
  "index",
  "default",
];
const templateText = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((p) => p.join("")),
);

function tryParse(text: string): TemplateError | "ok" {
  try {
    parseTemplate("p", text);
    return "ok";
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
}

describe("parser properties", () => {
  it("returns a template or throws TemplateError with a position inside the text", () => {
    fc.assert(
      fc.property(templateText, (text) => {
        const r = tryParse(text);
        if (r === "ok") return;
        assert.equal(r.kind, "parse");
        assert.match(r.message, /^template: p(:\d+)?: /);
        const lines = text.split("\n").length;
        assert.ok(r.line >= 1 && r.line <= lines, `line ${r.line} of ${lines}`);
        assert.ok(r.column >= 1);
      }),
      { numRuns: 3000 },
    );
  });

  it("executing whatever parses fails only with TemplateError, within the budget", () => {
    const data = { a: [1, 2, { c: "x" }], b: { c: null } };
    fc.assert(
      fc.property(templateText, (text) => {
        let t;
        try {
          t = parseTemplate("p", text);
        } catch {
          return;
        }
        try {
          renderTemplate(t, data, { maxSteps: 10_000 });
        } catch (e) {
          assert.ok(e instanceof TemplateError, String(e));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("deeply nested input is an error, not a crash", () => {
    for (const text of ["{{" + "(".repeat(20000) + "1" + ")".repeat(20000) + "}}", "{{if 1}}".repeat(5000)]) {
      const r = tryParse(text);
      assert.ok(r instanceof TemplateError);
    }
  });
});
