import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldReferences, parseTemplate } from "../index.js";

const refs = (text: string): [string, number, number][] =>
  fieldReferences(parseTemplate("t", text), "children").map((r) => [r.name, r.line, r.column]);

describe("fieldReferences", () => {
  const cases: [string, string, [string, number, number][]][] = [
    ["a field chain", "x: {{ .children.svc.spec.clusterIP }}", [["svc", 1, 7]]],
    ["the head alone is no reference", "{{ toJson .children }}", []],
    [
      "$ reaches the root anywhere in the main template",
      "{{ range .parent.spec.items }}\n{{ $.children.db.metadata.name }}{{ end }}",
      [["db", 2, 4]],
    ],
    [
      "inside range and with, dot is not the root",
      "{{ range .parent.spec.items }}{{ .children.a }}{{ end }}{{ with .parent }}{{ .children.b }}{{ else }}{{ .children.c }}{{ end }}",
      [["c", 1, 105]],
    ],
    [
      "if keeps the root",
      "{{ if .children.a }}{{ .children.b.x }}{{ else }}{{ .children.c }}{{ end }}",
      [
        ["a", 1, 7],
        ["b", 1, 24],
        ["c", 1, 53],
      ],
    ],
    [
      "index with a constant key",
      '{{ index .children "svc" }} {{ index $.children "db" }} {{ index .children .parent.k }}',
      [
        ["svc", 1, 10],
        ["db", 1, 38],
      ],
    ],
    [
      "pipelines, parentheses and arguments",
      '{{ .children.a.spec | default (.children.b.x) | printf "%v-%v" .children.c }}',
      [
        ["a", 1, 4],
        ["b", 1, 32],
        ["c", 1, 64],
      ],
    ],
    [
      "in a define, neither dot nor $ is the root",
      '{{ define "x" }}{{ .children.a }}{{ $.children.b }}{{ end }}{{ template "x" .children.c }}',
      [["c", 1, 77]],
    ],
    ["other heads are ignored", "{{ .parent.children.x }}{{ .self.spec }}", []],
  ];
  it("gives the whole chain after the head", () => {
    assert.deepEqual(
      fieldReferences(
        parseTemplate("t", '{{ .parent.spec.a.b }}{{ index .parent "spec" }}{{ $.parent.metadata }}'),
        "parent",
      ).map((r) => r.path),
      [["spec", "a", "b"], ["spec"], ["metadata"]],
    );
  });

  for (const [name, text, expected] of cases) {
    it(name, () => {
      assert.deepEqual(refs(text), expected);
    });
  }
});
