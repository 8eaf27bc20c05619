/**
 * Finds the control-plane binaries: first what the user brings (envtest's variables), then the
 * per-version cache, and only then a Go build. A warm start never rebuilds.
 */
import { access, constants, mkdir, rm, rmdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { componentsFor, type BinaryPaths, type ClusterMode, type Component } from "./components.js";
import { buildWithGo } from "./go-build.js";
import type { KubeRelease } from "./versions.js";

export class MissingBinariesError extends Error {
  override readonly name = "MissingBinariesError";
}

export interface ResolveBinariesOptions {
  readonly release: KubeRelease;
  readonly mode: ClusterMode;
  readonly env: NodeJS.ProcessEnv;
  /** Progress for slow work (a cold Go build takes 10–15 minutes). */
  readonly onProgress?: (message: string) => void;
}

/** `$KRO_CACHE_DIR`, else `$XDG_CACHE_HOME/kro-ts`, else `~/.cache/kro-ts`: outside the repo. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.KRO_CACHE_DIR) return env.KRO_CACHE_DIR;
  return path.join(env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "kro-ts");
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** envtest conventions: TEST_ASSET_<NAME> for one binary, KUBEBUILDER_ASSETS for a folder of them. */
async function userProvided(component: Component, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const variable = `TEST_ASSET_${component.toUpperCase().replaceAll("-", "_")}`;
  const explicit = env[variable];
  if (explicit) {
    if (!(await isExecutable(explicit))) {
      throw new MissingBinariesError(`${variable}=${explicit} is not an executable file`);
    }
    return explicit;
  }
  const assets = env.KUBEBUILDER_ASSETS;
  if (assets) {
    const candidate = path.join(assets, component);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function findGo(env: NodeJS.ProcessEnv): string | undefined {
  const goBinary = env.GO ?? "go";
  const probe = spawnSync(goBinary, ["env", "GOVERSION"], { env, encoding: "utf8" });
  return probe.status === 0 ? goBinary : undefined;
}

function missingMessage(release: KubeRelease, missing: readonly Component[]): string {
  return [
    `cannot start the local cluster: no ${missing.join(", ")} binaries for Kubernetes ${release.kubernetes}, and no Go toolchain to build them.`,
    "Either install Go (1.24 or newer, e.g. `apt-get install golang` or from go.dev) and run again — the first build takes 10–15 minutes —",
    "or bring your own binaries: set KUBEBUILDER_ASSETS to a folder containing them,",
    "or TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD to the files (full mode also needs kube-controller-manager, kube-scheduler and kwok).",
  ].join("\n");
}

/** A lock directory, so that two processes never build into the same cache at once. */
async function withBuildLock<T>(lockDir: string, onWait: () => void, work: () => Promise<T>): Promise<T> {
  await mkdir(path.dirname(lockDir), { recursive: true });
  let waited = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = Date.now() - (await stat(lockDir).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > 60 * 60 * 1000) await rmdir(lockDir).catch(() => undefined); // abandoned by a killed build
      if (!waited) onWait();
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

export async function resolveBinaries(
  options: ResolveBinariesOptions,
): Promise<Required<Pick<BinaryPaths, "etcd" | "kube-apiserver">> & BinaryPaths> {
  const { release, env } = options;
  const progress = options.onProgress ?? (() => undefined);
  const binDir = path.join(cacheRoot(env), "kubernetes", release.kubernetes);
  const found: BinaryPaths = {};
  const missing: Component[] = [];
  for (const component of componentsFor(options.mode)) {
    const provided = await userProvided(component, env);
    const cached = path.join(binDir, component);
    if (provided !== undefined) found[component] = provided;
    else if (await isExecutable(cached)) found[component] = cached;
    else missing.push(component);
  }
  if (missing.length > 0) {
    const goBinary = findGo(env);
    if (goBinary === undefined) throw new MissingBinariesError(missingMessage(release, missing));
    const workDir = path.join(cacheRoot(env), "build", release.kubernetes);
    await withBuildLock(
      `${workDir}.lock`,
      () => {
        progress("waiting for another process that is building the same binaries");
      },
      async () => {
        const stillMissing: Component[] = [];
        for (const c of missing) if (!(await isExecutable(path.join(binDir, c)))) stillMissing.push(c);
        if (stillMissing.length === 0) return;
        progress(
          `building ${stillMissing.join(", ")} for Kubernetes ${release.kubernetes} from Go modules (first run only: 10–15 minutes on 2 cores; later starts reuse ${binDir})`,
        );
        await buildWithGo({ release, components: stillMissing, binDir, workDir, goBinary, env, onStep: progress });
      },
    );
    for (const c of missing) found[c] = path.join(binDir, c);
  }
  const { etcd, "kube-apiserver": apiserver } = found;
  if (etcd === undefined || apiserver === undefined)
    throw new MissingBinariesError("internal: etcd or kube-apiserver unresolved");
  return { ...found, etcd, "kube-apiserver": apiserver };
}
