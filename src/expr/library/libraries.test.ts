import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileExpression } from "../compile.js";
import { createKroCelEnvironment } from "../environment.js";
import { seededInt, seededString } from "./lib-kro.js";

const env = createKroCelEnvironment({ enableOmit: true, enableRuntime: true });
const run = (expr: string, vars: Record<string, unknown> = {}): unknown => {
  const r = compileExpression(env, expr).evaluateJson(vars);
  return r.omitted ? "<omitted>" : r.value;
};

// [expression, expected JSON result] — kro's and cel-go's documented examples where they exist.
const table: Record<string, [string, unknown][]> = {
  strings: [
    ['"hello".charAt(1)', "e"],
    ['"hello".charAt(5)', ""],
    ['"a-b-c".replace("-", "_")', "a_b_c"],
    ['"a-b-c".replace("-", "_", 1)', "a_b-c"],
    ['"gums".reverse()', "smug"],
    ['"%s is %d".format(["x", 3])', "x is 3"],
    ['"%.2f".format([1.2345])', "1.23"],
    ['"%x".format([255])', "ff"],
    ['"%X".format(["hi"])', "6869"],
    ['"%b".format([5])', "101"],
    ['"%o".format([8])', "10"],
    ['"%e".format([1234.5])', "1.234500e+03"],
    ['"100%%".format([])', "100%"],
    ['"%s".format([[1, "a"]])', "[1, a]"],
    ['strings.quote("a\\nb")', '"a\\nb"'],
    ['"Hello".lowerAscii()', "hello"],
    ['"a,b".split(",")', ["a", "b"]],
    ['["a", "b"].join("-")', "a-b"],
    ['"  x ".trim()', "x"],
    ['"hello".indexOf("l")', 2],
    ['"hello".lastIndexOf("l")', 3],
    ['"hello".substring(1, 3)', "el"],
  ],
  optionalsAndBind: [
    ["o.?a.?b.orValue(7)", 7],
    ['o.?x.orValue("d")', 1],
    ["optional.of(2).value()", 2],
    ["optional.none().hasValue()", false],
    ["o.?missing", null],
    ["cel.bind(x, 3, x * x)", 9],
  ],
  twoVariableComprehensions: [
    ["[1, 2].all(i, v, v > i)", true],
    ['{"a": 1}.exists(k, v, v == 1)', true],
    ["[1, 1].existsOne(i, v, v == 1)", false],
    ["[5, 6].transformList(i, v, i + v)", [5, 7]],
    ["[5, 6].transformList(i, v, i > 0, v)", [6]],
    ['{"a": 1}.transformMap(k, v, v * 10)', { a: 10 }],
    ['{"a": 1}.transformMapEntry(k, v, {v == 1 ? "one" : k: k})', { one: "a" }],
  ],
  listsExt: [
    ["[1, 2, 3, 4].slice(1, 3)", [2, 3]],
    ["[[1], [2, [3]]].flatten()", [1, 2, [3]]],
    ["[[1], [2, [3]]].flatten(2)", [1, 2, 3]],
    ["[3, 1, 2].sort()", [1, 2, 3]],
    ['["b", "a"].sort()', ["a", "b"]],
    ["[1, 2, 1].distinct()", [1, 2]],
    ["[1, 2].reverse()", [2, 1]],
    ["lists.range(3)", [0, 1, 2]],
    ['[{"n": 2}, {"n": 1}].sortBy(e, e.n)', [{ n: 1 }, { n: 2 }]],
    ["[1, 2].first().orValue(0)", 1],
    ["[].last().orValue(0)", 0],
  ],
  encoders: [
    ['base64.encode(b"hello")', "aGVsbG8="],
    ['string(base64.decode("aGVsbG8="))', "hello"],
    ['string(base64.decode("aGVsbG8"))', "hello"],
  ],
  kro: [
    ['json.marshal({"a": [1, true, "x"]})', '{"a":[1,true,"x"]}'],
    ['json.unmarshal("{\\"a\\": [1, 2]}").a[1]', 2],
    ['json.unmarshal("[1.5]")[0] + 1.0', 2.5],
    ['"%x".format([hash.sha256("hello")])', "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"],
    ['"%x".format([hash.md5("hello")])', "5d41402abc4b2a76b9719d911017c592"],
    ['"%x".format([hash.fnv64a("hello")])', "a430d84680aabd0b"],
    ['{"a": 1, "b": 2}.merge({"b": 3})', { a: 1, b: 3 }],
    ['{"a": {"x": 1, "l": [1]}}.deepMerge({"a": {"y": 2, "l": [2]}})', { a: { x: 1, l: [2], y: 2 } }],
    ["lists.setAtIndex([1, 2, 3], 1, 9)", [1, 9, 3]],
    ["lists.insertAtIndex([1, 2], 2, 3)", [1, 2, 3]],
    ["lists.insertAtIndex([1, 2], 0, 0)", [0, 1, 2]],
    ["lists.removeAtIndex([1, 2, 3], 0)", [2, 3]],
    ['random.seededString(8, "x") == random.seededString(8, "x")', true],
    ['{"a": omit(), "b": [1, omit()]}', { b: [1] }],
    ["omit()", "<omitted>"],
    [
      'runtime.newCondition({"type": "Ready", "status": "True", "reason": "Ok"})',
      { type: "Ready", status: "True", reason: "Ok", message: "" },
    ],
    ['runtime.condition({"status": {}}, "X").type', "X"],
  ],
  kubernetes: [
    ["[1, 2, 3].isSorted()", true],
    ["[3, 1].isSorted()", false],
    ["[1, 2, 3].sum()", 6],
    ["[1.5, 2.5].sum()", 4],
    ["[2, 1, 3].min()", 1],
    ["[2, 1, 3].max()", 3],
    ['["a", "b", "a"].lastIndexOf("a")', 2],
    ['"abc 123".find("[0-9]+")', "123"],
    ['"abc".find("[0-9]+")', ""],
    ['"a1b2c3".findAll("[0-9]", 2)', ["1", "2"]],
    ['isURL("https://example.com:80/path?x=y")', true],
    ['isURL("not a url")', false],
    ['url("https://example.com:80/path").getHost()', "example.com:80"],
    ['url("https://[::1]:80/").getHostname()', "::1"],
    ['url("https://example.com/a%20b").getEscapedPath()', "/a%20b"],
    ['url("/p").getScheme()', ""],
    ['quantity("1Gi").asInteger()', 1073741824],
    ['quantity("500m").isInteger()', false],
    ['quantity("1").add(quantity("500m")).asApproximateFloat()', 1.5],
    ['quantity("2").sub(1).compareTo(quantity("1"))', 0],
    ['quantity("1k") == quantity("1000")', true],
    ['isQuantity("1.5Gi")', true],
    ['isQuantity("Gi")', false],
    ['ip("192.168.0.1").family()', 4],
    ['ip("::1").isLoopback()', true],
    ['ip("127.0.0.1").isLoopback()', true],
    ['isIP("1.2.3")', false],
    ['isIP("::ffff:1.2.3.4")', false],
    ['ip.isCanonical("2001:DB8::1")', false],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("8.8.8.8").isGlobalUnicast()', true],
    ['cidr("192.168.0.0/16").containsIP(ip("192.168.3.4"))', true],
    ['cidr("192.168.0.0/16").containsCIDR("192.168.1.0/24")', true],
    ['cidr("192.168.0.0/16").prefixLength()', 16],
    ['string(cidr("192.168.1.5/24").masked())', "192.168.1.0/24"],
    ['string(cidr("10.0.0.0/8").ip())', "10.0.0.0"],
    ['isSemver("1.2.3-alpha.1+build")', true],
    ['isSemver("v1.2")', false],
    ['isSemver("v1.2", true)', true],
    ['semver("1.2.3").major()', 1],
    ['semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', true],
    ['semver("1.10.0").compareTo(semver("1.9.0"))', 1],
    ['semver("01.2.3", true).patch()', 3],
  ],
};

describe("function libraries", () => {
  for (const [library, cases] of Object.entries(table)) {
    describe(library, () => {
      for (const [expr, expected] of cases) {
        it(`${expr} → ${JSON.stringify(expected)}`, () => {
          assert.deepEqual(run(expr, { o: { x: 1n } }), expected);
        });
      }
    });
  }
});

describe("library errors", () => {
  const errors = [
    "lists.setAtIndex([1], 1, 2)",
    "[1, 2].slice(2, 1)",
    'quantity("x")',
    'ip("1.2.3")',
    'cidr("10.0.0.0/33")',
    'semver("1")',
    'random.seededString(0, "s")',
    'random.seededInt(5, 5, "s")',
    'json.unmarshal("{")',
    '"%d".format(["x"])',
    '"%s".format([])',
    "[].max()",
    'runtime.newCondition({"type": "A", "status": "Maybe"})',
    'base64.decode("!!")',
  ];
  for (const expr of errors)
    it(`${expr} fails`, () => {
      assert.throws(() => run(expr));
    });

  it("omit() and runtime.* are unknown without their options", () => {
    const plain = createKroCelEnvironment();
    assert.throws(() => compileExpression(plain, "omit()").evaluate({}));
    assert.throws(() => compileExpression(plain, 'runtime.condition({}, "A")').evaluate({}));
  });
});

describe("random (kro v0.9 bit-for-bit)", () => {
  it("seededString uses 4-byte windows of one sha256 digest (period 8)", () => {
    const s = seededString(20n, "my-seed");
    assert.match(s, /^[0-9a-z]{20}$/);
    assert.equal(s.slice(8, 16), s.slice(0, 8));
    assert.equal(seededString(8n, "my-seed"), s.slice(0, 8));
  });
  it("seededString and seededInt match values computed from the algorithm by hand", () => {
    // sha256("seed") = 19b25856e1c150ca834cffc8b59b23adbd0ec0389e58eb22b3b64768098d002b
    const words = [0x19b25856, 0xe1c150ca, 0x834cffc8, 0xb59b23ad, 0xbd0ec038, 0x9e58eb22, 0xb3b64768, 0x098d002b];
    const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
    assert.equal(seededString(8n, "seed"), words.map((w) => alphabet[w % 36]).join(""));
    assert.equal(seededInt(0n, 100n, "seed"), 0x19b25856e1c150can % 100n);
    assert.equal(seededInt(-10n, 10n, "seed"), -10n + (0x19b25856e1c150can % 20n));
  });
});
