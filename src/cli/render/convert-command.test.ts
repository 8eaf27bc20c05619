// `kro convert`, `kro render` and `kro validate` on an RGD with two versions, as a user runs them:
// the built CLI as a subprocess, offline.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const RGD = path.join(ROOT, "examples/versions/webapp-v1beta1.yaml");
const BETA = path.join(ROOT, "examples/versions/app-v1beta1.yaml");

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}
const docs = (text: string) =>
  parseAllDocuments(text).map((d) => d.toJS() as { apiVersion: string; kind: string; spec?: Record<string, unknown> });

describe("kro convert / render / validate with several versions", () => {
  it("converts an instance to the hub and back unchanged", async () => {
    const alpha = await kro(["convert", "-f", BETA, "--rgd", RGD, "--to", "v1alpha1"]);
    assert.equal(alpha.code, 0, alpha.stderr);
    assert.deepEqual(docs(alpha.stdout)[0]?.spec, { image: "nginx:1.27", port: 8080, team: "payments" });
    const dir = await mkdtemp(path.join(tmpdir(), "kro-convert-"));
    await writeFile(path.join(dir, "alpha.yaml"), alpha.stdout);
    const back = await kro(["convert", "-f", path.join(dir, "alpha.yaml"), "--rgd", RGD, "--to", "v1beta1"]);
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(docs(back.stdout)[0], docs(await readFile(BETA, "utf8"))[0]);
  });

  it("refuses a version the RGD does not serve, at the instance's position", async () => {
    const result = await kro(["convert", "-f", BETA, "--rgd", RGD, "--to", "v2"]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /app-v1beta1\.yaml:1:1: error: apiVersion: evolving-app does not serve kro\.run\/v2 \(served: v1alpha1, v1beta1\)/,
    );
  });

  it("renders an instance written at the non-hub version", async () => {
    const result = await kro(["render", "-f", RGD, "-i", BETA]);
    assert.equal(result.code, 0, result.stderr);
    const [config, instance] = docs(result.stdout) as unknown as [
      { data: Record<string, string> },
      { apiVersion: string },
    ];
    assert.deepEqual(config.data, { image: "nginx:1.27", port: "8080", team: "payments" });
    assert.equal(instance.apiVersion, "kro.run/v1beta1", "the instance is printed as written");
  });

  it("validate reports a lossy conversion at file:line:col", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-lossy-"));
    const lossy = path.join(dir, "lossy.yaml");
    await writeFile(lossy, (await readFile(RGD, "utf8")).replace("team: ${self.spec.team}", 'team: "nobody"'));
    const result = await kro(["validate", "-f", lossy]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr + result.stdout,
      /lossy\.yaml:17:7: error: spec\.schema\.spec\.team: field spec\.team of v1alpha1 is lost converting to v1beta1/,
    );
  });
});
