import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyHelmIgnore, goGlob } from "./helmignore.js";

const enc = new TextEncoder();
const chart = (ignore: string, paths: readonly string[]) =>
  new Map([[".helmignore", enc.encode(ignore)], ...paths.map((p) => [p, enc.encode("x")] as const)]);
const kept = (ignore: string, paths: readonly string[]) =>
  [...applyHelmIgnore(chart(ignore, paths)).keys()].filter((p) => p !== ".helmignore").sort();

describe(".helmignore as Helm applies it", () => {
  const paths = [
    "Chart.yaml",
    "a.bak",
    "top.txt",
    "sub/top.txt",
    "conf/x.tmp",
    "conf/y.conf",
    "secret/s",
    "sub/secret/s",
    "templates/.hidden.yaml",
    "templates/x.yaml",
    ".hidden",
  ];
  const table: [string, string, string[]][] = [
    [
      "a base-name glob matches in every directory",
      "*.bak\n",
      paths.filter((p) => p !== "a.bak" && p !== "templates/.hidden.yaml"),
    ],
    [
      "dir/ ignores directories of that name anywhere, with their contents",
      "secret/\n",
      paths.filter((p) => !p.includes("secret/") && p !== "templates/.hidden.yaml"),
    ],
    [
      "a leading / anchors at the chart root",
      "/top.txt\n",
      paths.filter((p) => p !== "top.txt" && p !== "templates/.hidden.yaml"),
    ],
    [
      "a pattern with a slash matches the whole path; * does not cross /",
      "conf/*.tmp\n*/s\n",
      paths.filter((p) => p !== "conf/x.tmp" && p !== "secret/s" && p !== "templates/.hidden.yaml"),
    ],
    ["comments and blank lines are skipped", "# *.yaml\n\n   \n", paths.filter((p) => p !== "templates/.hidden.yaml")],
    [
      "a negation reached by a path it does not match ignores that path (Helm's semantics)",
      "!*.yaml\n",
      ["Chart.yaml"],
    ],
    ["a negation lets a matching path go on to later rules", "!conf*\nconf/x.tmp\n", []],
  ];
  for (const [what, ignore, expected] of table)
    it(what, () => {
      assert.deepEqual(kept(ignore, paths), [...expected].sort());
    });

  it("without a .helmignore only the default rule (dotfiles in templates/) applies", () => {
    const files = new Map([
      ["templates/.x", enc.encode("")],
      ["templates/a.yaml", enc.encode("")],
      [".x", enc.encode("")],
    ]);
    assert.deepEqual([...applyHelmIgnore(files).keys()].sort(), [".x", "templates/a.yaml"]);
  });
  it("is idempotent: filtered files filter to themselves", () => {
    const once = applyHelmIgnore(chart("*.bak\nsecret/\n/top.txt\n", paths));
    assert.deepEqual([...applyHelmIgnore(once).keys()], [...once.keys()]);
  });
  it("refuses ** and bad globs with the line", () => {
    assert.throws(() => applyHelmIgnore(chart("ok\nfoo/**/x\n", [])), /\.helmignore:2: double-star/);
    assert.throws(() => applyHelmIgnore(chart("[a-\n", [])), /\.helmignore:1: syntax error in pattern/);
  });
  it("goGlob follows Go's filepath.Match", () => {
    const cases: [string, string, boolean][] = [
      ["*.txt", "a.txt", true],
      ["*.txt", "d/a.txt", false],
      ["a?c", "abc", true],
      ["a?c", "a/c", false],
      ["[a-c]x", "bx", true],
      ["[^a-c]x", "dx", true],
      ["[^a-c]x", "ax", false],
      ["\\*", "*", true],
      ["a.b", "axb", false],
    ];
    for (const [pattern, name, match] of cases) assert.equal(goGlob(pattern).test(name), match, `${pattern} ~ ${name}`);
  });
});
