// `npm run build:vscode`: the VS Code extension of editors/vscode/ as a .vsix, offline.
// esbuild bundles the extension and vscode-languageclient into one file (only `vscode` stays a
// require: VS Code provides it), so the .vsix needs no node_modules; vsce, VS Code's own packager,
// writes the .vsix from a staging folder that holds just what ships, so the source tree gets no
// build output and two builds (the test's and a person's) do not share files.
// Usage: node scripts/build-vscode.mjs [--out file.vsix]   (default: dist/vscode/kro-<version>.vsix)
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { createVSIX } from "@vscode/vsce";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "editors/vscode");
const manifest = JSON.parse(readFileSync(path.join(source, "package.json"), "utf8"));
const { values } = parseArgs({ options: { out: { type: "string" } } });
const out = path.resolve(values.out ?? path.join(root, "dist/vscode", `${manifest.name}-${manifest.version}.vsix`));

const stage = mkdtempSync(path.join(tmpdir(), "kro-vscode-"));
try {
  await build({
    entryPoints: [path.join(source, "src/extension.ts")],
    outfile: path.join(stage, manifest.main),
    bundle: true,
    platform: "node",
    format: "cjs",
    // VS Code 1.91, the oldest the manifest accepts, runs extensions on Node 20.
    target: "node20",
    external: ["vscode"],
    minify: true,
    logLevel: "warning",
  });
  copyFileSync(path.join(source, "package.json"), path.join(stage, "package.json"));
  copyFileSync(path.join(source, "README.md"), path.join(stage, "README.md"));
  mkdirSync(path.dirname(out), { recursive: true });
  await createVSIX({
    cwd: stage,
    packagePath: out,
    // Everything the extension runs is in the bundle.
    dependencies: false,
    // The project has no public repository or LICENSE file to point at; vsce would ask otherwise.
    allowMissingRepository: true,
    skipLicense: true,
  });
} finally {
  rmSync(stage, { recursive: true, force: true });
}
