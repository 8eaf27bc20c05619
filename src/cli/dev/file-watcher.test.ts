import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { watchFiles } from "./file-watcher.js";

describe("watchFiles", () => {
  it("reports a burst of writes to watched files once, survives save-by-rename, ignores other files", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-watch-"));
    const file = path.join(dir, "rgd.yaml");
    await writeFile(file, "a: 1\n");
    const batches: string[][] = [];
    let notify: () => void = () => undefined;
    const watcher = watchFiles(
      [file],
      (changed) => {
        batches.push(changed);
        notify();
      },
      300,
    );
    const next = () =>
      new Promise<void>((resolve) => {
        notify = resolve;
      });
    try {
      let seen = next();
      await writeFile(path.join(dir, "other.yaml"), "x\n");
      await writeFile(file, "a: 2\n");
      await writeFile(file, "a: 3\n");
      await seen;
      assert.deepEqual(batches, [[file]], "one batch for the burst, naming only the watched file");

      // Editors save by writing a temp file and renaming it over the original.
      seen = next();
      await writeFile(path.join(dir, ".rgd.yaml.swp"), "a: 4\n");
      await rename(path.join(dir, ".rgd.yaml.swp"), file);
      await seen;
      assert.ok(batches.length >= 2);
      assert.ok(
        batches.every((b) => b.length === 1 && b[0] === file),
        JSON.stringify(batches),
      );
    } finally {
      watcher.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
