import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadYaml } from "./yaml-source.js";

const TEXT = [
  "spec:",
  "  resources:",
  "    - id: deploy",
  '      name: "quoted"',
  "      template:",
  "        a: 1",
  "",
].join("\n");

describe("SourceDocument.span and strings", () => {
  const [document] = loadYaml("f.yaml", TEXT).documents;
  const slice = (span: { start: number; end: number } | undefined): string | undefined =>
    span === undefined ? undefined : TEXT.slice(span.start, span.end);

  it("spans a scalar value by its own text, a collection by its key", () => {
    assert.equal(slice(document?.span(["spec", "resources", 0, "id"])), "deploy");
    assert.equal(slice(document?.span(["spec", "resources", 0, "name"])), '"quoted"');
    assert.equal(slice(document?.span(["spec", "resources", 0, "template"])), "template");
    assert.equal(slice(document?.span(["spec", "resources", 0])), "i");
    assert.equal(document?.span(["spec", "resources", 0, "missing"]), undefined);
    assert.equal(document?.span(["spec", "resources", 3]), undefined);
  });

  it("lists every string scalar with its path, offsets and whether it is a key", () => {
    assert.deepEqual(
      document?.strings().map((s) => [s.path.join("."), slice(s.span), s.isKey, s.style]),
      [
        ["spec", "spec", true, "plain"],
        ["spec.resources", "resources", true, "plain"],
        ["spec.resources.0.id", "id", true, "plain"],
        ["spec.resources.0.id", "deploy", false, "plain"],
        ["spec.resources.0.name", "name", true, "plain"],
        ["spec.resources.0.name", '"quoted"', false, "quoted"],
        ["spec.resources.0.template", "template", true, "plain"],
        ["spec.resources.0.template.a", "a", true, "plain"],
      ],
    );
  });
});
