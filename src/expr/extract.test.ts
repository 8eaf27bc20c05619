import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { extractExpressions } from "./extract.js";
import { findExpressions } from "./find-expressions.js";

const sources = (text: string): string[] =>
  extractExpressions(text).segments.flatMap((s) => (s.kind === "expression" ? [s.source] : []));

describe("extractExpressions", () => {
  const cases: [string, string[], boolean][] = [
    ["${schema.spec.name}", ["schema.spec.name"], true],
    ["plain", [], false],
    ["a-${x}-b", ["x"], false],
    ["${a}${b}", ["a", "b"], false],
    ['${{"a": 1}}', ['{"a": 1}'], true],
    ['${"}" + x}', ['"}" + x'], true],
    ['${"\\"}" + x}', ['"\\"}" + x'], true],
    ['${"${VAR}"}', ['"${VAR}"'], true],
    ["${'}'}", ["'"], false],
    ["pre ${x} post ${y.z}", ["x", "y.z"], false],
  ];
  for (const [text, expected, standalone] of cases) {
    it(`${text} → ${JSON.stringify(expected)}`, () => {
      const r = extractExpressions(text);
      assert.deepEqual(sources(text), expected);
      assert.equal(r.standalone, standalone);
    });
  }

  it("rejects nested expressions", () => {
    const r = extractExpressions("${a ${b}}");
    const issue = r.issues[0];
    assert.ok(issue);
    assert.equal(issue.code, "expr.nested-expression");
    assert.equal(issue.severity, "error");
  });

  it("reports an unterminated ${ as an error, or keeps it as literal text in kro mode", () => {
    assert.equal(extractExpressions("a ${b").issues[0]?.severity, "error");
    const compat = extractExpressions("a ${b", { unterminatedAsLiteral: true });
    assert.equal(compat.issues[0]?.severity, "warning");
    assert.deepEqual(compat.segments, [{ kind: "literal", text: "a ${b" }]);
  });

  it("reports an empty expression", () => {
    assert.equal(extractExpressions("${ }").issues[0]?.code, "expr.empty-expression");
  });

  it("never throws and segments cover the input (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("$", "{", "}", '"', "\\", "a", " ", "'") }), (text) => {
        const r = extractExpressions(text);
        if (r.issues.some((i) => i.severity === "error")) return;
        const rebuilt = r.segments.map((s) => (s.kind === "literal" ? s.text : text.slice(s.start, s.end))).join("");
        assert.equal(rebuilt, text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        extractExpressions(text);
        extractExpressions(text, { unterminatedAsLiteral: true });
      }),
    );
  });
});

describe("findExpressions", () => {
  it("finds fields with paths and never scans keys", () => {
    const found = findExpressions(
      {
        metadata: { name: "${schema.spec.name}", labels: { "${k}": "v" } },
        spec: { ports: [{ port: "${p}" }], x: "a ${b" },
      },
      {},
      ["template"],
    );
    assert.deepEqual(
      found.fields.map((f) => f.path),
      [
        ["template", "metadata", "name"],
        ["template", "spec", "ports", 0, "port"],
      ],
    );
    assert.deepEqual(
      found.issues.map((i) => i.path),
      [["template", "spec", "x"]],
    );
  });
});
