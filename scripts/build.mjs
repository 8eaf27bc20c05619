// `npm run build`: compiles src/ and test/ into dist/ in one tsc pass (JavaScript, declarations
// and source maps), after removing the previous output so a deleted source leaves no stale file.
// Comments stay in the JavaScript: stripping them in a second pass saved about 1 MB of an idle
// controller's heap (V8 keeps each module's source text) and cost every build a second
// type-check; the RSS moved less than the noise (docs/performance-archive.md).
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");

rmSync(path.join(root, "dist"), { recursive: true, force: true });

const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
  child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
});
process.exitCode = code;
