// `npm run build`: compiles src/ and test/ into dist/ in one tsc pass (JavaScript, declarations
// and source maps), after removing the previous output so a deleted source leaves no stale file.
// Comments stay in the JavaScript: stripping them in a second pass saved about 1 MB of an idle
// controller's heap (V8 keeps each module's source text) and cost every build a second
// type-check; the RSS moved less than the noise (docs/performance-archive.md).
// tsc writes every file without an execute bit, and npm restores it on `bin` entries only when it
// links a package, not for the package it runs in: without the chmod below, `npx kro` in this
// checkout fails with "Permission denied" after every rebuild.
import { spawn } from "node:child_process";
import { chmodSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");

rmSync(path.join(root, "dist"), { recursive: true, force: true });

const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
  child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
});
if (code === 0) {
  const { bin } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  for (const file of new Set(Object.values(bin ?? {}))) chmodSync(path.join(root, file), 0o755);
}
process.exitCode = code;
