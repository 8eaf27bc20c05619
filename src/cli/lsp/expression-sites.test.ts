import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { expressionSites, identifiersOf } from "./expression-sites.js";

describe("identifiersOf", () => {
  it("marks roots, leaves out fields, calls, strings and numbers", () => {
    const source = 'a.b.?c + d.size() + "e.f" + 1e3 + has(g.h) ? i : j[k]';
    const tokens = identifiersOf(source, 10).map((t) => [
      t.name,
      t.root,
      source.slice(t.span.start - 10, t.span.end - 10),
    ]);
    assert.deepEqual(tokens, [
      ["a", true, "a"],
      ["b", false, "b"],
      ["c", false, "c"],
      ["d", true, "d"],
      ["g", true, "g"],
      ["h", false, "h"],
      ["i", true, "i"],
      ["j", true, "j"],
      ["k", true, "k"],
    ]);
  });
});

describe("expressionSites", () => {
  it("finds each ${…} at its offsets in the file, in plain, quoted and block strings", () => {
    const text = ["a: ${x.y}-${z}", 'b: "${q}"', "c: |", "  line ${w", "    .v}", "d: no expression", ""].join("\n");
    const [document] = loadYaml("f.yaml", text).documents;
    assert.ok(document);
    const sites = expressionSites(document, text);
    assert.deepEqual(
      sites.map((s) => text.slice(s.span.start, s.span.end)),
      ["${x.y}", "${z}", "${q}", "${w\n    .v}"],
    );
    assert.deepEqual(
      sites.flatMap((s) => s.identifiers.filter((t) => t.root).map((t) => text.slice(t.span.start, t.span.end))),
      ["x", "z", "q", "w"],
    );
  });
});
