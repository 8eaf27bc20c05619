// The layer rule must fail lint, not live in a document: run the project's dependency-cruiser
// configuration over small fixture trees and check what it reports.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DEPCRUISE = path.join(ROOT, "node_modules", ".bin", "depcruise");

async function cruise(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "kro-layer-rule-"));
  try {
    await copyFile(path.join(ROOT, ".dependency-cruiser.cjs"), path.join(dir, ".dependency-cruiser.cjs"));
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
    );
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
    const result = await promisify(execFile)(DEPCRUISE, ["src", "--config", ".dependency-cruiser.cjs"], { cwd: dir })
      .then(({ stdout }) => ({ ok: true, output: stdout }))
      .catch((error: unknown) => ({ ok: false, output: (error as { stdout?: string }).stdout ?? "" }));
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("layer rule (npm run lint)", () => {
  it("accepts a downward import through index.ts", async () => {
    const result = await cruise({
      "src/localcluster/index.ts": 'export { x } from "../diag/index.js";\n',
      "src/diag/index.ts": "export const x = 1;\n",
    });
    assert.equal(result.ok, true, result.output);
  });

  it("fails on an upward import", async () => {
    const result = await cruise({
      "src/diag/index.ts": 'export { y } from "../localcluster/index.js";\n',
      "src/localcluster/index.ts": "export const y = 1;\n",
    });
    assert.equal(result.ok, false);
    assert.match(result.output, /layer-0-imports-upward/);
  });

  it("fails on a deep import that bypasses index.ts", async () => {
    const result = await cruise({
      "src/cli/main.ts": 'export { z } from "../localcluster/cluster.js";\n',
      "src/localcluster/index.ts": 'export { z } from "./cluster.js";\n',
      "src/localcluster/cluster.ts": "export const z = 1;\n",
    });
    assert.equal(result.ok, false);
    assert.match(result.output, /only-through-index/);
  });

  it("fails when a pure module imports the Kubernetes client", async () => {
    const result = await cruise({
      "src/graph/index.ts": 'export { k } from "../kube/index.js";\n',
      "src/kube/index.ts": "export const k = 1;\n",
    });
    assert.equal(result.ok, false);
    assert.match(result.output, /kube-only-from-io-modules/);
  });
  it("accepts a sub-room entered through its index.ts, and files of one room importing each other", async () => {
    const result = await cruise({
      "src/controller/index.ts": 'export { r } from "./instance/index.js";\n',
      "src/controller/instance/index.ts": 'export { r } from "./reconcile.js";\n',
      "src/controller/instance/reconcile.ts": 'import { w } from "../watches/index.js";\nexport const r = w;\n',
      "src/controller/watches/index.ts": 'export { w } from "./pool.js";\n',
      "src/controller/watches/pool.ts": "export const w = 1;\n",
    });
    assert.equal(result.ok, true, result.output);
  });

  it("fails when a module's root file reaches past a sub-room's index.ts", async () => {
    const result = await cruise({
      "src/controller/index.ts": 'export { r } from "./instance/reconcile.js";\n',
      "src/controller/instance/index.ts": 'export { r } from "./reconcile.js";\n',
      "src/controller/instance/reconcile.ts": "export const r = 1;\n",
    });
    assert.equal(result.ok, false);
    assert.match(result.output, /sub-room-only-through-index/);
  });

  it("fails when one sub-room reaches into a sibling's insides", async () => {
    const result = await cruise({
      "src/controller/index.ts": 'export { r } from "./instance/index.js";\n',
      "src/controller/instance/index.ts": 'export { r } from "./reconcile.js";\n',
      "src/controller/instance/reconcile.ts": 'import { w } from "../watches/pool.js";\nexport const r = w;\n',
      "src/controller/watches/index.ts": 'export { w } from "./pool.js";\n',
      "src/controller/watches/pool.ts": "export const w = 1;\n",
    });
    assert.equal(result.ok, false);
    assert.match(result.output, /sibling-room-only-through-index/);
  });

  it("fails when another module reaches into a sub-room", async () => {
    const result = await cruise({
      "src/cli/main.ts": 'export { r } from "../controller/instance/index.js";\n',
      "src/controller/index.ts": 'export { r } from "./instance/index.js";\n',
      "src/controller/instance/index.ts": "export const r = 1;\n",
    });
    assert.equal(result.ok, false);
    assert.match(result.output, /only-through-index/);
  });
});
