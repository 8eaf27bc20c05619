// Quick fixes from the compiler's own diagnostics of misspelt names: an unknown resource id in
// ${…}, an unknown spec field, an unknown field of a template — each replaced by the name meant,
// at its own place, and the fixed text compiles clean.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { TextDocument } from "vscode-languageserver-textdocument";
import { createKroCelEnvironment } from "../../expr/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import { loadBuiltinSchemas } from "../inputs/index.js";
import { analyze } from "./analysis.js";
import { misspelling, quickFixes } from "./code-actions.js";
import { toDiagnostics } from "./diagnostics.js";

const VALID = readFileSync(new URL("../../../../test/data/lsp/webapp-rgd.yaml", import.meta.url), "utf8");

describe("quick fixes for misspelt names", () => {
  let resolver: SchemaResolver;
  const env = createKroCelEnvironment({ enableRuntime: true });
  before(async () => {
    resolver = await loadBuiltinSchemas("1.33");
  });

  /** Applies every quick fix of the text's diagnostics; returns the titles and the fixed text. */
  const fix = (text: string) => {
    const document = TextDocument.create("file:///x.yaml", "yaml", 1, text);
    const diagnostics = toDiagnostics(analyze(document.uri, 1, text, { resolver, env }), document);
    const actions = quickFixes(document, diagnostics);
    const edits = actions.flatMap((a) => a.edit?.changes?.[document.uri] ?? []);
    return { titles: actions.map((a) => a.title), fixed: TextDocument.applyEdits(document, edits), diagnostics };
  };
  const clean = (text: string) => {
    const document = TextDocument.create("file:///x.yaml", "yaml", 1, text);
    return toDiagnostics(analyze(document.uri, 1, text, { resolver, env }), document);
  };

  it("an unknown resource id in ${…}", () => {
    const { titles, fixed } = fix(VALID.replace("${deploy.metadata.name}-", "${depoy.metadata.name}-"));
    assert.deepEqual(titles, ['Change "depoy" to "deploy"']);
    assert.equal(fixed, VALID);
  });

  it("an unknown field of the instance's spec, not the same word elsewhere in the value", () => {
    const { titles, fixed } = fix(VALID.replace("${schema.spec.replicas}", "${schema.spec.replicsa}"));
    assert.deepEqual(titles, ['Change "replicsa" to "replicas"']);
    assert.equal(fixed, VALID);
  });

  it("an unknown field of a template", () => {
    const broken = VALID.replace("matchLabels:", "matchLabel:");
    const { titles, fixed, diagnostics } = fix(broken);
    assert.ok(diagnostics.length > 0, "the compiler refuses it");
    assert.deepEqual(titles, ['Change "matchLabel" to "matchLabels"']);
    assert.equal(fixed, VALID);
    assert.deepEqual(clean(fixed), []);
  });

  it("quotes a value YAML would misread: a ${…} with ': ' inside, unquoted", () => {
    const valid = VALID.replace(
      "replicas: ${schema.spec.replicas}",
      "replicas: '${schema.spec.replicas > 3 ? 3 : schema.spec.replicas}'",
    );
    const broken = valid.replace(
      "'${schema.spec.replicas > 3 ? 3 : schema.spec.replicas}'",
      "${schema.spec.replicas > 3 ? 3 : schema.spec.replicas}",
    );
    assert.notEqual(broken, valid);
    const { titles, fixed, diagnostics } = fix(broken);
    assert.ok(diagnostics.length > 0, "the loader refuses it");
    assert.deepEqual(titles, ["Quote the value"]);
    assert.equal(fixed, valid);
    assert.deepEqual(clean(fixed), []);
  });

  it("reads both names from the compiler's messages, and nothing without a suggestion", () => {
    assert.deepEqual(misspelling('expression "x": Unknown variable: depoy (did you mean "deploy"?)'), {
      wrong: "depoy",
      meant: "deploy",
    });
    assert.equal(misspelling("Unknown variable: zzz"), undefined);
    assert.deepEqual(fix(VALID.replace("${deploy.metadata.name}-", "${zzzzzz.metadata.name}-")).titles, []);
  });
});
