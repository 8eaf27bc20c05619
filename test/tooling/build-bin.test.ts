// What `npm run build` leaves behind for `npx kro`: every `bin` entry of package.json executable.
// npm links bins with the bit set when it installs a package, but not for the package it runs in,
// so the build must set it itself or `npx kro` fails with "Permission denied" after a rebuild.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const run = promisify(execFile);

describe("the build's bin files", () => {
  it("leaves every bin entry of package.json executable, so `npx kro` runs after a rebuild", async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    const bins = [...new Set(Object.values(pkg.bin))];
    assert.ok(bins.length > 0);
    for (const bin of bins) {
      const { mode } = await stat(path.join(ROOT, bin));
      assert.equal(mode & 0o111, 0o111, `${bin} has mode ${(mode & 0o777).toString(8)}`);
    }
    // Run as a program, not through `node`: the shebang line and the bit together.
    const { stdout } = await run(path.join(ROOT, bins[0] ?? ""), ["--version"], { cwd: ROOT });
    assert.match(stdout, /\d+\.\d+\.\d+/);
  });
});
