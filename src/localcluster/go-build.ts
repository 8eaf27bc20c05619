/**
 * Builds the control-plane binaries from Go modules, the way envtest provides them: one small
 * wrapper module per upstream project (sources in the package's go/ folder), a go.mod generated
 * for the pinned release, `go mod tidy`, `go build`. Output is installed atomically into the
 * per-version cache so a concurrent or interrupted build never leaves a half-written binary.
 */
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import type { Component } from "./components.js";
import { runCommand } from "./run-command.js";
import { stagingVersion, type KubeRelease } from "./versions.js";

/** The wrapper modules shipped with the package (go/kube, go/etcd, go/kwok). */
export const GO_SOURCES_DIR = fileURLToPath(new URL("../../../go/", import.meta.url));

type GoModuleName = "kube" | "etcd" | "kwok";

const MODULE_OF: Record<Component, GoModuleName> = {
  "kube-apiserver": "kube",
  "kube-controller-manager": "kube",
  "kube-scheduler": "kube",
  etcd: "etcd",
  kwok: "kwok",
};

export interface GoBuildOptions {
  readonly release: KubeRelease;
  readonly components: readonly Component[];
  /** Where finished binaries go (one folder per Kubernetes version). */
  readonly binDir: string;
  /** Scratch space for generated modules and the build log. */
  readonly workDir: string;
  readonly goBinary: string;
  readonly env: NodeJS.ProcessEnv;
  readonly onStep: (message: string) => void;
}

interface KubernetesGoMod {
  readonly goDirective: string;
  readonly stagingModules: readonly string[];
  readonly etcdVersion: string;
}

/** Reads what we need from k8s.io/kubernetes' own go.mod: staging modules and the etcd version. */
export function parseKubernetesGoMod(text: string): KubernetesGoMod {
  const stagingModules = [...text.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s*=>\s*\.\/staging\//gm)].map((m) => m[1] ?? "");
  const etcd = /^\s*go\.etcd\.io\/etcd\/server\/v3\s+(v\S+)/m.exec(text)?.[1];
  const go = /^go\s+(\S+)/m.exec(text)?.[1];
  if (stagingModules.length === 0 || etcd === undefined || go === undefined) {
    throw new Error("unexpected k8s.io/kubernetes go.mod: no staging replaces, etcd server version or go directive");
  }
  return { goDirective: go, stagingModules, etcdVersion: etcd };
}

export function kubeGoMod(release: KubeRelease, upstream: KubernetesGoMod): string {
  const staging = stagingVersion(release);
  const replaces = upstream.stagingModules.map((m) => `\t${m} => ${m} ${staging}`).join("\n");
  return `module kro-ts.local/kube\n\ngo ${upstream.goDirective}\n\nrequire k8s.io/kubernetes ${release.kubernetes}\n\nreplace (\n${replaces}\n)\n`;
}

function singleRequireGoMod(name: string, goDirective: string, module: string, version: string): string {
  return `module kro-ts.local/${name}\n\ngo ${goDirective}\n\nrequire ${module} ${version}\n`;
}

function versionLdflags(release: KubeRelease): string {
  const [major, minor] = release.minor.split(".");
  const pkg = "k8s.io/component-base/version";
  return `-s -w -X ${pkg}.gitVersion=${release.kubernetes} -X ${pkg}.gitMajor=${major ?? ""} -X ${pkg}.gitMinor=${minor ?? ""} -X ${pkg}.gitTreeState=clean`;
}

export async function buildWithGo(options: GoBuildOptions): Promise<void> {
  const { release, workDir, goBinary, env, onStep } = options;
  await mkdir(workDir, { recursive: true });
  const logFile = path.join(workDir, "build.log");
  const goEnv = { ...env, GOFLAGS: "-mod=mod -buildvcs=false", GOWORK: "off" };
  const go = (cwd: string, ...args: string[]) => runCommand(goBinary, args, { cwd, env: goEnv, logFile });

  onStep(`resolving k8s.io/kubernetes ${release.kubernetes}`);
  const info = JSON.parse(await go(workDir, "mod", "download", "-json", `k8s.io/kubernetes@${release.kubernetes}`)) as {
    GoMod?: string;
  };
  if (info.GoMod === undefined)
    throw new Error(`go mod download gave no go.mod for k8s.io/kubernetes@${release.kubernetes}`);
  const upstream = parseKubernetesGoMod(await readFile(info.GoMod, "utf8"));

  const goMods: Record<GoModuleName, string> = {
    kube: kubeGoMod(release, upstream),
    etcd: singleRequireGoMod("etcd", upstream.goDirective, "go.etcd.io/etcd/server/v3", upstream.etcdVersion),
    kwok: singleRequireGoMod("kwok", upstream.goDirective, "sigs.k8s.io/kwok", release.kwok),
  };
  const outDir = path.join(workDir, "out");
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });

  for (const moduleName of ["etcd", "kube", "kwok"] as const) {
    const wanted = options.components.filter((c) => MODULE_OF[c] === moduleName);
    if (wanted.length === 0) continue;
    const moduleDir = path.join(workDir, moduleName);
    await rm(path.join(moduleDir, "cmd"), { recursive: true, force: true });
    await mkdir(moduleDir, { recursive: true });
    await cp(path.join(GO_SOURCES_DIR, moduleName, "cmd"), path.join(moduleDir, "cmd"), { recursive: true });
    await writeFile(path.join(moduleDir, "go.mod"), goMods[moduleName]);
    onStep(`fetching Go modules for ${wanted.join(", ")}`);
    await go(moduleDir, "mod", "tidy");
    onStep(`compiling ${wanted.join(", ")}`);
    await go(
      moduleDir,
      "build",
      "-trimpath",
      "-ldflags",
      versionLdflags(release),
      "-o",
      outDir + path.sep,
      ...wanted.map((c) => `./cmd/${c}`),
    );
  }

  await mkdir(options.binDir, { recursive: true });
  for (const component of options.components) {
    await rename(path.join(outDir, component), path.join(options.binDir, component));
  }
}
