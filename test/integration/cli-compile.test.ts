// `kro validate` and `kro generate crd` as a user runs them, and the generated CRD accepted by
// the real API server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kubectl } from "../support/test-cluster.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const WEBAPP = path.join(ROOT, "test/fixtures/rgd/webapp.yaml");

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

async function withBrokenCopy<T>(edit: (text: string) => string, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "kro-cli-"));
  try {
    const file = path.join(dir, "broken.yaml");
    await writeFile(file, edit(await readFile(WEBAPP, "utf8")));
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("kro validate", () => {
  it("exits 0 and summarises a valid RGD", async () => {
    const result = await kro(["validate", "-f", WEBAPP]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^webapp: valid \(WebApp\.kro\.run, 4 resources: deploy → svc → ing → cms\)$/m);
  });

  it("exits 1 with file:line:column, the source line and a caret", async () => {
    await withBrokenCopy((t) => t.replace("replicas: ${schema.spec.replicas}", "replicas: ${schema.spec.name}"), async (file) => {
      const result = await kro(["validate", "-f", file]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /broken\.yaml:29:11: error: spec\.resources\[0\]\.template\.spec\.replicas: expression "schema\.spec\.name" returns type "string"/);
      assert.match(result.stderr, /^ {3}29 \| {11}replicas: \$\{schema\.spec\.name\}$/m);
      assert.match(result.stderr, /^ {6}\| {11}\^$/m);
    });
  });

  it("prints machine-readable diagnostics with -o json", async () => {
    await withBrokenCopy((t) => t.replace("integer | default=2 minimum=1", "integer | default=2 colour=1"), async (file) => {
      const result = await kro(["validate", "-f", file, "-o", "json"]);
      assert.equal(result.code, 1);
      const diagnostics = JSON.parse(result.stdout) as { line: number; column: number; code: string; path: string }[];
      assert.deepEqual(diagnostics.map((d) => [d.code, d.path, d.line, d.column]), [["schema.unknown-marker", "spec.schema.spec.replicas", 12, 7]]);
    });
  });

  it("fails clearly on a missing file", async () => {
    const result = await kro(["validate", "-f", "/nonexistent/rgd.yaml"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /kro: error: cannot read \/nonexistent\/rgd\.yaml: ENOENT/);
  });
});

describe("kro generate crd", () => {
  it("prints a CRD that the real API server accepts", async () => {
    const result = await kro(["generate", "crd", "-f", WEBAPP]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^kind: CustomResourceDefinition$/m);
    const applied = await kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], result.stdout);
    assert.match(applied, /customresourcedefinition\.apiextensions\.k8s\.io\/webapps\.kro\.run serverside-applied \(server dry run\)/);
  });

  it("rejects an unknown output format", async () => {
    const result = await kro(["generate", "crd", "-f", WEBAPP, "-o", "xml"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /unknown output format "xml"/);
  });
});
