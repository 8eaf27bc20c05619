import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { YAML_ISSUE_CODES, YAML_LIMITS } from "./yaml-limits.js";
import { hostileYaml } from "../../test/unit-support/api/hostile-yaml.js";
import { loadYaml, loadYamlBytes } from "./yaml-source.js";

describe("hostile YAML gets exactly one located issue, never a throw", () => {
  for (const [name, { text, code }] of Object.entries(hostileYaml())) {
    it(name, () => {
      const loaded = typeof text === "string" ? loadYaml("h.yaml", text) : loadYamlBytes("h.yaml", text);
      assert.equal(loaded.problems.length, 1, JSON.stringify(loaded.problems));
      const [problem] = loaded.problems;
      assert.equal(problem?.issue.code, code);
      assert.ok(problem.position !== undefined, "located");
      assert.equal(loaded.documents.length, 0);
    });
  }
  it("the bad byte is located by line and column", () => {
    const loaded = loadYamlBytes("h.yaml", Uint8Array.from([...Buffer.from("a: 1\nb: x"), 0xff]));
    assert.deepEqual(loaded.problems[0]?.position, { line: 2, column: 5 });
  });
  it("a file over the size limit is refused before parsing", () => {
    const loaded = loadYaml("h.yaml", `a: "${"x".repeat(YAML_LIMITS.maxBytes)}"\n`);
    assert.deepEqual(
      loaded.problems.map((p) => p.issue.code),
      [YAML_ISSUE_CODES.tooLarge],
    );
  });
  it("a few aliases and moderate nesting still load", () => {
    const loaded = loadYaml("ok.yaml", `base: &b {x: 1}\nuse: *b\ndeep: ${"[".repeat(50)}1${"]".repeat(50)}\n`);
    assert.deepEqual(loaded.problems, []);
    assert.deepEqual((loaded.documents[0]?.value as { use: unknown }).use, { x: 1 });
  });
});
