import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { MissingBinariesError, cacheRoot, resolveBinaries } from "./binaries.js";
import { resolveKubeRelease } from "./versions.js";

describe("resolveBinaries", () => {
  let dir = "";
  const release = resolveKubeRelease("1.33");
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kro-binaries-test-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function fakeBinary(folder: string, name: string, executable = true): Promise<string> {
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, name);
    await writeFile(file, "#!/bin/sh\n");
    await chmod(file, executable ? 0o755 : 0o644);
    return file;
  }

  /** An environment with no Go and an empty cache, so only what a test provides is found. */
  const isolated = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    PATH: "/nonexistent",
    GO: path.join(dir, "no-go-here"),
    KRO_CACHE_DIR: path.join(dir, "cache"),
    ...extra,
  });

  it("prefers TEST_ASSET_* files, then KUBEBUILDER_ASSETS", async () => {
    const assets = path.join(dir, "assets");
    const etcd = await fakeBinary(assets, "etcd");
    const apiserver = await fakeBinary(path.join(dir, "elsewhere"), "kube-apiserver");
    await fakeBinary(assets, "kube-apiserver");
    const found = await resolveBinaries({
      release,
      mode: "minimal",
      env: isolated({ KUBEBUILDER_ASSETS: assets, TEST_ASSET_KUBE_APISERVER: apiserver }),
    });
    assert.equal(found.etcd, etcd);
    assert.equal(found["kube-apiserver"], apiserver);
  });

  it("uses the per-version cache without building", async () => {
    const binDir = path.join(dir, "cache", "kubernetes", release.kubernetes);
    await fakeBinary(binDir, "etcd");
    await fakeBinary(binDir, "kube-apiserver");
    const found = await resolveBinaries({ release, mode: "minimal", env: isolated({}) });
    assert.equal(found.etcd, path.join(binDir, "etcd"));
  });

  it("rejects a TEST_ASSET that is not executable", async () => {
    const file = await fakeBinary(path.join(dir, "noexec"), "etcd", false);
    await assert.rejects(
      resolveBinaries({ release, mode: "minimal", env: isolated({ TEST_ASSET_ETCD: file }) }),
      /TEST_ASSET_ETCD=.* is not an executable file/,
    );
  });

  it("says exactly what to install or set when there is neither Go nor binaries", async () => {
    const env = isolated({ KRO_CACHE_DIR: path.join(dir, "empty-cache") });
    await assert.rejects(resolveBinaries({ release, mode: "full", env }), (error: unknown) => {
      assert.ok(error instanceof MissingBinariesError);
      assert.match(
        error.message,
        /no etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok binaries for Kubernetes v1\.33\.13/,
      );
      assert.match(error.message, /install Go/);
      assert.match(error.message, /KUBEBUILDER_ASSETS/);
      assert.match(error.message, /TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD/);
      return true;
    });
  });

  it("keeps the cache outside the repository by default", () => {
    assert.equal(cacheRoot({ XDG_CACHE_HOME: "/x/cache" }), "/x/cache/kro-ts");
    assert.equal(cacheRoot({ KRO_CACHE_DIR: "/y" }), "/y");
  });
});
