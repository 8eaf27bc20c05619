/**
 * `kro import helm` as a user runs it: a packaged chart (.tgz from `helm package`) with a values
 * file → files on disk → `kro validate` and `kro render` of them print what `helm template`
 * prints for the same chart and values. Failures exit non-zero naming the file and line.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadYaml } from "../../src/api/index.js";
import type { KubeJson } from "../../src/runtime/index.js";
import { helm } from "../support/helm.js";
import { helmObjects, normalize, objectKey } from "../support/helm-import.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

describe("kro import helm (CLI)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "kro-import-cli-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("imports a packaged chart with a values file; kro render of the result equals helm template", async () => {
    await helm(["package", path.join(ROOT, "test/fixtures/helm/features"), "-d", dir]);
    const tgz = path.join(dir, "features-1.2.3.tgz");
    const values = path.join(dir, "values.yaml");
    await writeFile(values, "replicas: 5\nworker:\n  enabled: true\nextraConfigs:\n  - {name: x, value: y}\n");
    const out = path.join(dir, "out");
    const imported = await kro([
      "import",
      "helm",
      tgz,
      "-f",
      values,
      "--release-name",
      "rel",
      "-n",
      "ns1",
      "--kind",
      "ShopApp",
      "-o",
      out,
    ]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /templates\/test-pod\.yaml:6: warning: test hook \(test\) dropped/);
    assert.match(imported.stdout, /wrote .*rgd\.yaml/);

    const validated = await kro(["validate", "-f", path.join(out, "rgd.yaml")]);
    assert.equal(validated.code, 0, validated.stderr);
    const rendered = await kro([
      "render",
      "-f",
      path.join(out, "rgd.yaml"),
      "-i",
      path.join(out, "instance.yaml"),
      "--crd",
      path.join(out, "crd.yaml"),
      "--assume-ready",
      "-o",
      "json",
    ]);
    assert.equal(rendered.code, 0, rendered.stderr);
    const items = (JSON.parse(rendered.stdout) as { items: KubeJson[] }).items.filter((o) => o.kind !== "ShopApp");
    const ours = new Map(items.map((o) => normalize(o)).map((o) => [objectKey(o), o]));
    const valuesObject = loadYaml("values", await readFile(values, "utf8")).documents[0]?.value as object;
    const theirs = await helmObjects(tgz, valuesObject);
    assert.deepEqual([...ours.keys()].sort(), [...theirs.keys()].sort());
    for (const [key, object] of theirs) assert.deepEqual(ours.get(key), object, key);
  });

  it("says at import which objects are cluster-scoped or in another namespace, scope from Kubernetes' kinds (an APIService too)", async () => {
    const out = path.join(dir, "scoped-out");
    const imported = await kro([
      "import",
      "helm",
      path.join(ROOT, "test/fixtures/helm/scoped"),
      "-n",
      "apps",
      "-o",
      out,
    ]);
    assert.equal(imported.code, 0, imported.stderr);
    const notes = imported.stderr.split("\n").filter((l) => l.includes(": note: "));
    assert.deepEqual(
      notes.slice(0, -1).map((l) => l.replace(/^.*: note: /, "")),
      [
        'ClusterRole scoped-reader (resource "clusterClusterRole") is cluster-scoped',
        'ClusterRoleBinding scoped-reader (resource "clusterClusterRoleBinding") is cluster-scoped',
        'RoleBinding scoped-auth-reader (resource "clusterRoleBinding") is in namespace kube-system, not the instance\'s (apps)',
        'APIService v1beta1.scoped.example.com (resource "clusterAPIService") is cluster-scoped',
      ],
    );
    assert.match(
      notes.at(-1) ?? "",
      /instance authors who may create them themselves .* unless the RGD exempts the resource \(kro\.run\/author-check-exempt/,
    );
    assert.doesNotMatch(imported.stderr, /ServiceAccount/, "an object in the instance's namespace is not named");
  });

  it("fails with the file and line of a broken chart, and with a missing chart", async () => {
    const broken = path.join(dir, "broken");
    await helm(["create", broken]);
    await writeFile(path.join(broken, "values.yaml"), "replicaCount: 1\nimage: [unclosed\n");
    const result = await kro(["import", "helm", broken]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /broken\/values\.yaml:\d+: /);
    const missing = await kro(["import", "helm", path.join(dir, "nope")]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read chart .*nope: ENOENT/);
  });
});
