import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { error } from "../diag/index.js";
import { formatLocated, loadYaml, toYaml } from "./yaml-source.js";

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
    const dup = loadYaml("dup.yaml", "a: 1\nb:\n  c: one\n  c: two\na: 2\n");
    assert.deepEqual(dup.problems, []);
    assert.deepEqual(dup.documents[0]?.value, { a: 2, b: { c: "two" } });
    assert.deepEqual(
      dup.warnings.map((w) => [w.issue.severity, w.issue.code, w.position]),
      [
        ["warning", "yaml.duplicate-key", { line: 4, column: 3 }],
        ["warning", "yaml.duplicate-key", { line: 5, column: 1 }],
      ],
    );
    assert.match(dup.warnings[0]?.issue.message ?? "", /"c" appears more than once.*last value wins/);
  });

  it("formats file:line:column with the source line and a caret", () => {
    const position = loaded.documents[0]?.locate(["metadata", "name"]);
    assert.ok(position);
    const text = formatLocated(
      { file: "rgd.yaml", position, issue: error("x", ["metadata", "name"], "bad name") },
      RGD,
    );
    assert.equal(text, "rgd.yaml:4:3: error: metadata.name: bad name\n    4 |   name: webapp\n      |   ^");
  });
});

describe("one YAML slip is one error, with a hint when a `: ` sits inside an unquoted ${…}", () => {
  // A slip near the top of an RGD: the parser's echoes of it used to become one error per token
  // of the rest of the file.
  const rest = Array.from({ length: 60 }, (_, i) => `          key${i}: value${i}`).join("\n");
  const slipped = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: demo
spec:
  resources:
    - id: cm
      template:
        metadata:
          name: \${schema.spec.name: y}
        data:
          a: \${schema.spec.replicas > 1 ? "many" : "one"}
${rest}
---
kind: Second
`;
  const loaded = loadYaml("rgd.yaml", slipped);

  it("reports the first error of the document with its position and only counts the rest", () => {
    assert.equal(loaded.problems.length, 1);
    const [first] = loaded.problems;
    assert.ok(first);
    assert.equal(first.issue.code, "yaml.syntax");
    assert.deepEqual(first.position, { line: 10, column: 17 });
    assert.match(first.issue.message, /\(and \d+ more errors? in this document, most likely caused by this one\)$/);
    assert.deepEqual(
      loaded.documents.map((d) => d.value),
      [{ kind: "Second" }],
      "the next document still loads",
    );
  });

  it("hints to quote the value, the way it reads with quotes, and names the other lines with the same slip", () => {
    const [first] = loaded.problems;
    assert.ok(first);
    assert.equal(
      first.hint,
      `YAML reads ": " inside an unquoted \${…} as a key separator; quote the whole value: name: '\${schema.spec.name: y}' (the same on line 12)`,
    );
    const printed = formatLocated(first, slipped).split("\n");
    assert.equal(printed.length, 4, "one error: head, source line, caret, hint");
    assert.match(printed[0] ?? "", /^rgd\.yaml:10:17: error: /);
    assert.match(printed[3] ?? "", /^ {5} = hint: YAML reads/);
  });

  it("quotes with double quotes when the value holds a single quote, and gives no hint for other slips", () => {
    const single = loadYaml("a.yaml", "a: ${x ? 'y' : 'z'}\nb: c\n");
    assert.match(single.problems[0]?.hint ?? "", /quote the whole value: a: "\$\{x \? 'y' : 'z'\}"$/);
    const other = loadYaml("b.yaml", "a: [1, 2\nb: c\n");
    assert.equal(other.problems.length, 1);
    assert.equal(other.problems[0]?.hint, undefined);
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
  const at = (key: string, line: number, column: number) =>
    doc?.locate(["spec", "childResources", 0, key], { line, column });

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

describe("loadYaml reads scalars and keys as sigs.k8s.io/yaml does (the Go differential test is test/integration/yaml-go-reader.test.ts)", () => {
  const value = (text: string): unknown => loadYaml("v.yaml", text).documents[0]?.value;

  it("YAML 1.1: octal modes, yes/no/on/off/y/n, Go's integer syntax; timestamps and base 60 stay strings", () => {
    assert.deepEqual(
      value(
        "mode: 0755\nflags: [yes, No, on, OFF, y, n, true]\nints: [0o17, 0x1F, 0b101, 1_000, +12, 08]\nkeep: [2001-12-14, 190:20:30, \"0755\", 'no']\n",
      ),
      {
        mode: 493,
        flags: [true, false, true, false, true, false, true],
        ints: [15, 31, 5, 1000, 12, 8],
        keep: ["2001-12-14", "190:20:30", "0755", "no"],
      },
    );
  });

  it('map keys become the strings Go makes of them (a forEach iterator named n is the key "false", as kubectl sends it)', () => {
    assert.deepEqual(value('n: a\non: b\n0755: c\n1.5e6: d\n0.1: e\n"y": f\n'), {
      false: "a",
      true: "b",
      493: "c",
      "1.5e+06": "d",
      0.1: "e",
      y: "f",
    });
  });

  it("refuses what JSON cannot carry, with the position: .inf/.nan values, null and collection keys", () => {
    for (const [text, line] of [
      ["a: 1\nb: .inf\n", 2],
      ["~: a\n", 1],
      ["? [1]\n: a\n", 1],
    ] as const) {
      const loaded = loadYaml("v.yaml", text);
      assert.deepEqual(loaded.documents, [], text);
      const [problem] = loaded.problems;
      assert.ok(problem, text);
      assert.equal(problem.issue.code, "yaml.not-json", text);
      assert.equal(problem.position?.line, line, text);
    }
  });
});

describe("toYaml writes strings so that kubectl and Helm read them back as strings", () => {
  it("quotes yes/no/on/off/y/n, octal- and number-like strings, timestamps, null words; leaves words plain", () => {
    assert.equal(
      toYaml({
        a: [
          "no",
          "yes",
          "y",
          "n",
          "on",
          "off",
          "0755",
          "0o17",
          "1_000",
          "1e3",
          "2001-12-14",
          "190:20:30",
          "~",
          "null",
          "word",
          1,
          true,
          null,
        ],
        y: 1,
      }),
      'a:\n  - "no"\n  - "yes"\n  - "y"\n  - "n"\n  - "on"\n  - "off"\n  - "0755"\n  - "0o17"\n  - "1_000"\n  - "1e3"\n  - "2001-12-14"\n  - "190:20:30"\n  - "~"\n  - "null"\n  - word\n  - 1\n  - true\n  - null\n"y": 1\n',
    );
  });
});
