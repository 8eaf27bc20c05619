import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goFunc, type FuncMap } from "../go/index.js";
import { functionTable, sprigFuncs } from "./funcs-all.js";

describe("functionTable", () => {
  it("builds one table per (Sprig or not, the caller's functions) and hands it out again", () => {
    const mine: FuncMap = { upper: goFunc(["string"], (s: string) => s) };
    const table = functionTable(true, mine);
    assert.equal(functionTable(true, mine), table);
    assert.equal(functionTable(true, undefined), functionTable(true, undefined));
    assert.notEqual(functionTable(true, undefined), table);
    assert.notEqual(functionTable(false, mine), table);
  });

  it("lets the caller's functions win over Sprig's, and leaves Sprig out when asked", () => {
    const mine: FuncMap = { upper: goFunc(["string"], (s: string) => s) };
    assert.equal(functionTable(true, mine).upper, mine.upper);
    assert.equal(functionTable(true, undefined).upper, sprigFuncs.upper);
    assert.equal(Object.hasOwn(functionTable(false, undefined), "upper"), false);
    assert.equal(Object.hasOwn(functionTable(false, undefined), "printf"), true);
  });
});
