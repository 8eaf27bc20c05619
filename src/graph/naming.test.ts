import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkIdentifier, checkKind, checkUniqueIds } from "./naming.js";

describe("naming rules", () => {
  const ids: [unknown, string | undefined][] = [
    ["deploy", undefined],
    ["webService2", undefined],
    ["Deploy", "rgd.id-invalid"],
    ["my-svc", "rgd.id-invalid"],
    ["", "rgd.id-missing"],
    [42, "rgd.id-missing"],
    ["schema", "rgd.id-reserved"],
    ["each", "rgd.id-reserved"],
    ["namespace", "rgd.id-reserved"],
    ["while", "rgd.id-reserved"],
  ];
  for (const [id, code] of ids) {
    it(`resource id ${JSON.stringify(id)} → ${code ?? "ok"}`, () => {
      const issues = checkIdentifier("resource id", id, ["spec", "resources", 0, "id"]);
      assert.deepEqual(
        issues.map((i) => i.code),
        code === undefined ? [] : [code],
      );
      for (const issue of issues) assert.deepEqual(issue.path, ["spec", "resources", 0, "id"]);
    });
  }

  const kinds: [unknown, string | undefined][] = [
    ["WebApp", undefined],
    ["webApp", "rgd.kind-invalid"],
    ["Web_App", "rgd.kind-invalid"],
    [undefined, "rgd.kind-missing"],
  ];
  for (const [kind, code] of kinds) {
    it(`kind ${JSON.stringify(kind)} → ${code ?? "ok"}`, () => {
      assert.deepEqual(
        checkKind(kind, ["spec", "schema", "kind"]).map((i) => i.code),
        code === undefined ? [] : [code],
      );
    });
  }

  it("names both places of a duplicate id", () => {
    const issues = checkUniqueIds([
      { id: "a", path: ["spec", "resources", 0, "id"] },
      { id: "b", path: ["spec", "resources", 1, "id"] },
      { id: "a", path: ["spec", "resources", 2, "id"] },
    ]);
    assert.equal(issues.length, 1);
    const [issue] = issues;
    assert.ok(issue);
    assert.deepEqual(issue.path, ["spec", "resources", 2, "id"]);
    assert.match(issue.message, /duplicate resource id "a" \(also used at spec\.resources\.0\.id\)/);
  });
});
