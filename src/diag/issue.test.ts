import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { error, formatIssue, formatPath, hasErrors, prefixIssues, warning } from "./issue.js";

describe("formatPath", () => {
  const cases: [readonly (string | number)[], string][] = [
    [[], ""],
    [["spec"], "spec"],
    [["spec", "resources", 2, "template", "spec", "replicas"], "spec.resources[2].template.spec.replicas"],
    [["metadata", "labels", "app.kubernetes.io/name"], 'metadata.labels["app.kubernetes.io/name"]'],
    [[0, "kind"], "[0].kind"],
  ];
  for (const [path, expected] of cases) {
    it(`${JSON.stringify(path)} → ${expected}`, () => {
      assert.equal(formatPath(path), expected);
    });
  }
});

describe("issues", () => {
  it("formats severity, path and message", () => {
    assert.equal(formatIssue(error("x", ["spec", "a"], "bad")), "error: spec.a: bad");
    assert.equal(formatIssue(warning("x", [], "hmm")), "warning: hmm");
  });

  it("tells errors from warnings and prefixes paths", () => {
    assert.equal(hasErrors([warning("w", [], "m")]), false);
    assert.equal(hasErrors([warning("w", [], "m"), error("e", [], "m")]), true);
    assert.deepEqual(prefixIssues(["spec", "schema"], [error("e", ["a"], "m")])[0]?.path, ["spec", "schema", "a"]);
  });
});
