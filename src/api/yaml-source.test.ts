import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { error } from "../diag/index.js";
import { formatLocated, loadYaml } from "./yaml-source.js";

const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: webapp
spec:
  resources:
    - id: deploy
      template:
        spec:
          replicas: 3
    - id: svc
---
kind: Second
`;

describe("loadYaml", () => {
  const loaded = loadYaml("rgd.yaml", RGD);

  it("parses every document", () => {
    assert.equal(loaded.documents.length, 2);
    assert.deepEqual(loaded.problems, []);
    assert.deepEqual(loaded.documents[1]?.value, { kind: "Second" });
  });

  const cases: [path: (string | number)[], line: number, column: number][] = [
    [[], 1, 1],
    [["metadata", "name"], 4, 3],
    [["spec", "resources", 0, "template", "spec", "replicas"], 10, 11],
    [["spec", "resources", 1], 11, 7],
    [["spec", "resources", 1, "id"], 11, 7],
    // absent keys map to the nearest ancestor that exists
    [["spec", "resources", 1, "template", "kind"], 11, 7],
    [["spec", "resources", 7], 6, 3],
  ];
  for (const [path, line, column] of cases) {
    it(`locates ${JSON.stringify(path)} at ${line}:${column}`, () => {
      assert.deepEqual(loaded.documents[0]?.locate(path), { line, column });
    });
  }

  it("reports syntax errors with their position instead of throwing", () => {
    const bad = loadYaml("bad.yaml", "a: 1\nb: [1, 2\nc: 3\n");
    assert.equal(bad.documents.length, 0);
    const first = bad.problems[0];
    assert.ok(first, "a problem is reported");
    assert.equal(first.issue.code, "yaml.syntax");
    assert.ok(first.position, "with a position");
  });

  it("accepts duplicate keys as kubectl does (the last value wins) and warns where the repeat is", () => {
    const dup = loadYaml("dup.yaml", "a: 1\nb:\n  c: x\n  c: y\na: 2\n");
    assert.deepEqual(dup.problems, []);
    assert.deepEqual(dup.documents[0]?.value, { a: 2, b: { c: "y" } });
    assert.deepEqual(dup.warnings.map((w) => [w.issue.severity, w.issue.code, w.position]), [
      ["warning", "yaml.duplicate-key", { line: 4, column: 3 }],
      ["warning", "yaml.duplicate-key", { line: 5, column: 1 }],
    ]);
    assert.match(dup.warnings[0]?.issue.message ?? "", /"c" appears more than once.*last value wins/);
  });

  it("formats file:line:column with the source line and a caret", () => {
    const position = loaded.documents[0]?.locate(["metadata", "name"]);
    assert.ok(position);
    const text = formatLocated({ file: "rgd.yaml", position, issue: error("x", ["metadata", "name"], "bad name") }, RGD);
    assert.equal(text, "rgd.yaml:4:3: error: metadata.name: bad name\n    4 |   name: webapp\n      |   ^");
  });
});

describe("locate inside a string value (embedded templates)", () => {
  const text = `spec:
  childResources:
    - nameTemplate: "{{.parent.metadata.name}}"
      plain: x {{x}} and more
      single: 'ab {{ .y }}'
      template: |
        spec:
          replicas: {{ .parent.spec.replicas }}

          selector: {}
      folded: >-
          a
          b
`;
  const loaded = loadYaml("t.yaml", text);
  assert.deepEqual(loaded.problems, []);
  const [doc] = loaded.documents;
  const at = (key: string, line: number, column: number) => doc?.locate(["spec", "childResources", 0, key], { line, column });

  it("maps lines of a block scalar to file lines and adds its indentation", () => {
    assert.deepEqual(at("template", 1, 1), { line: 7, column: 9 });
    assert.deepEqual(at("template", 2, 13), { line: 8, column: 21 });
    assert.equal(text.split("\n")[7]?.slice(20, 22), "{{");
    assert.deepEqual(at("template", 4, 3), { line: 10, column: 11 });
  });

  it("keeps a column past the end of a blank line on that line", () => {
    assert.deepEqual(at("template", 3, 5), { line: 9, column: 1 });
  });

  it("skips the opening quote of quoted scalars", () => {
    assert.deepEqual(at("nameTemplate", 1, 3), { line: 3, column: 24 });
    assert.equal(text.split("\n")[2]?.slice(23, 25), ".p");
    assert.deepEqual(at("single", 1, 4), { line: 5, column: 19 });
  });

  it("maps plain scalars and folded blocks on their own lines", () => {
    assert.deepEqual(at("plain", 1, 3), { line: 4, column: 16 });
    assert.deepEqual(at("folded", 2, 1), { line: 13, column: 11 });
  });

  it("falls back to the key for paths that are not string scalars", () => {
    assert.deepEqual(doc?.locate(["spec", "childResources", 0], { line: 1, column: 1 }), { line: 3, column: 7 });
    assert.deepEqual(at("missing", 1, 1), { line: 3, column: 7 });
  });
});
