import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseGoBool, parseGoFloat64, parseGoInt64 } from "./go-literals.js";
import { checkGoRegexp } from "./go-regexp.js";

describe("Go literal parsing", () => {
  it("parses booleans like strconv.ParseBool", () => {
    for (const t of ["1", "t", "T", "TRUE", "true", "True"]) assert.equal(parseGoBool(t), true, t);
    for (const f of ["0", "f", "F", "FALSE", "false", "False"]) assert.equal(parseGoBool(f), false, f);
    for (const bad of ["yes", "tRUE", "", " true", "2"]) assert.equal(parseGoBool(bad), undefined, bad);
  });

  it("parses int64 like strconv.ParseInt(s, 10, 64)", () => {
    assert.deepEqual(parseGoInt64("42"), { value: 42 });
    assert.deepEqual(parseGoInt64("+7"), { value: 7 });
    assert.deepEqual(parseGoInt64("-0012"), { value: -12 });
    for (const bad of ["1.5", "0x10", "1_000", "", " 1", "1e3"]) assert.ok("error" in parseGoInt64(bad), bad);
    assert.match((parseGoInt64("9223372036854775808") as { error: string }).error, /int64 range/);
    assert.match((parseGoInt64("9007199254740993") as { error: string }).error, /exactly/);
  });

  it("parses float64 decimal syntax and rejects non-JSON values", () => {
    assert.deepEqual(parseGoFloat64("1.5"), { value: 1.5 });
    assert.deepEqual(parseGoFloat64("-.5e2"), { value: -50 });
    assert.deepEqual(parseGoFloat64("3"), { value: 3 });
    assert.deepEqual(parseGoFloat64("5."), { value: 5 });
    for (const bad of ["abc", "Inf", "NaN", "", "1e999", "1.2.3"]) assert.ok("error" in parseGoFloat64(bad), bad);
  });
});

describe("checkGoRegexp", () => {
  const valid = [
    "^[a-z]+$",
    "(?i)^abc$",
    "(?P<year>\\d{4})-(?P<m>\\d\\d)",
    "\\Aabc\\z",
    "[[:alpha:]]+",
    "[^[:digit:]]",
    "\\Q.*\\E",
    "[:a]",
    "[]a]",
    "(?s:a.b)",
  ];
  for (const pattern of valid)
    it(`accepts ${pattern}`, () => {
      assert.equal(checkGoRegexp(pattern), undefined);
    });

  const invalid = ["(abc", "a(?=b)", "a(?!b)", "(?<=a)b", "(a)\\1", "[[:nope:]]", "*a", "a\\"];
  for (const pattern of invalid)
    it(`rejects ${pattern}`, () => {
      assert.equal(typeof checkGoRegexp(pattern), "string");
    });
});
