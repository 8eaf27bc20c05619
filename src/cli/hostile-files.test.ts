// `kro validate` on hostile files: one located diagnostic each, valid `-o json`, exit 1, no crash.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { hostileYaml } from "../../test/unit-support/api/hostile-yaml.js";

const CLI = fileURLToPath(new URL("./main.js", import.meta.url));

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

/** The text output is checked where it is most at risk (a 3,000-character line; an alias bomb). */
const TEXT_CHECKED = new Set(["flow nesting 3000 deep", "alias bomb"]);

describe("kro validate on hostile files", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kro-hostile-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cases = {
    ...hostileYaml(),
    "a 20 MB file": { text: `a: "${"x".repeat(20 << 20)}"\n`, code: "yaml.too-large" },
  };
  for (const [name, { text, code }] of Object.entries(cases)) {
    it(`${name}: one diagnostic with file:line:column, exit 1`, async () => {
      const file = path.join(dir, `${name.replace(/\W+/g, "-")}.yaml`);
      await writeFile(file, text);
      const json = await kro(["validate", "-f", file, "-o", "json"]);
      assert.equal(json.code, 1, json.stderr);
      assert.equal(json.stderr, "");
      const diagnostics = JSON.parse(json.stdout) as { file: string; line?: number; column?: number; code: string }[];
      assert.equal(diagnostics.length, 1, json.stdout);
      const only = diagnostics[0] ?? { file: "", code: "missing" };
      assert.equal(only.code, code);
      assert.equal(typeof only.line, "number");
      assert.equal(typeof only.column, "number");
      if (!TEXT_CHECKED.has(name)) return;
      const textOut = await kro(["validate", "-f", file]);
      assert.equal(textOut.code, 1);
      assert.equal(textOut.stderr.split("\n").filter((l) => / error: /.test(l)).length, 1, textOut.stderr);
      assert.match(textOut.stderr, new RegExp(`${path.basename(file).replace(/\./g, "\\.")}:\\d+:\\d+: error: `));
      assert.ok(
        textOut.stderr.split("\n").every((l) => l.length < 400),
        "long source lines are cut",
      );
    });
  }
});
