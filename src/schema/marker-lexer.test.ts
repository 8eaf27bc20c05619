import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import { lexMarkers } from "./marker-lexer.js";

describe("lexMarkers", () => {
  const ok: [string, [string, string][]][] = [
    ["", []],
    ["   ", []],
    ["required=true", [["required", "true"]]],
    [
      " required=true   default=3 ",
      [
        ["required", "true"],
        ["default", "3"],
      ],
    ],
    ['description="a b  c"', [["description", "a b  c"]]],
    ['description="say \\"hi\\" \\\\ now"', [["description", 'say "hi" \\ now']]],
    ['pattern="^\\d+$"', [["pattern", "^\\d+$"]]],
    [
      "default=[1, 2, 3] minimum=0",
      [
        ["default", "[1, 2, 3]"],
        ["minimum", "0"],
      ],
    ],
    ['default={"a": "x ] y", "b": [1, {"c": 2}]}', [["default", '{"a": "x ] y", "b": [1, {"c": 2}]}']]],
    ['validation="self.a || self.b"', [["validation", "self.a || self.b"]]],
    ["default=", [["default", ""]]],
    ['description=""', [["description", ""]]],
    ["a=b=c", [["a", "b=c"]]],
  ];
  for (const [text, expected] of ok) {
    it(`lexes ${JSON.stringify(text)}`, () => {
      const result = lexMarkers(text);
      assert.equal(result.error, undefined);
      assert.deepEqual(
        result.markers.map((m) => [m.key, m.value]),
        expected,
      );
    });
  }

  const bad: [string, string, RegExp][] = [
    ["required", SCHEMA_ISSUE_CODES.markerSyntax, /has no value/],
    ["required=true optional", SCHEMA_ISSUE_CODES.markerSyntax, /"optional" has no value/],
    ["=true", SCHEMA_ISSUE_CODES.markerSyntax, /without a key/],
    ['description="never closed', SCHEMA_ISSUE_CODES.markerSyntax, /unclosed quote/],
    ["default=[1, 2", SCHEMA_ISSUE_CODES.markerSyntax, /unclosed '\['/],
    ['default={"a": 1', SCHEMA_ISSUE_CODES.markerSyntax, /unclosed '\{'/],
    ["default=[1}", SCHEMA_ISSUE_CODES.markerSyntax, /unbalanced '\}'/],
    ['description="a"b', SCHEMA_ISSUE_CODES.markerSyntax, /after quoted value/],
    ["required=true | description=x", SCHEMA_ISSUE_CODES.multipleSeparators, /only one '\|'/],
    ["required=true|", SCHEMA_ISSUE_CODES.multipleSeparators, /only one '\|'/],
    ['description="x"|a=b', SCHEMA_ISSUE_CODES.multipleSeparators, /only one '\|'/],
  ];
  for (const [text, code, message] of bad) {
    it(`rejects ${JSON.stringify(text)}`, () => {
      const result = lexMarkers(text);
      assert.equal(result.error?.code, code);
      assert.match(result.error.message, message);
    });
  }
});
