/**
 * A real `helm` for the chart tests, built from the helm.sh/helm/v3 Go module the way the control
 * plane is built (no binary download): `go install` once into the kro-ts cache, reused after.
 * `$KRO_TEST_HELM` points at an existing helm instead.
 */
import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { cacheRoot } from "../../src/localcluster/index.js";

const run = promisify(execFile);

export const HELM_VERSION = "v3.18.6";
/** The Kubernetes minor helm's client libraries are built for (helm 3.18 uses k8s.io/* v0.33). */
const HELM_KUBE_MINOR = "33";

let building: Promise<string> | undefined;

async function build(target: string): Promise<string> {
  const scratch = await mkdtemp(`${target}.build-`);
  try {
    const pkg = "helm.sh/helm/v3";
    const ldflags = [
      "-s",
      "-w",
      `-X ${pkg}/internal/version.version=${HELM_VERSION}`,
      `-X ${pkg}/pkg/chartutil.k8sVersionMajor=1`,
      `-X ${pkg}/pkg/chartutil.k8sVersionMinor=${HELM_KUBE_MINOR}`,
      `-X ${pkg}/pkg/lint/rules.k8sVersionMajor=1`,
      `-X ${pkg}/pkg/lint/rules.k8sVersionMinor=${HELM_KUBE_MINOR}`,
    ].join(" ");
    await run("go", ["install", "-ldflags", ldflags, `${pkg}/cmd/helm@${HELM_VERSION}`], {
      env: { ...process.env, GOBIN: scratch, GOFLAGS: "-buildvcs=false", GOWORK: "off" },
      maxBuffer: 16 * 1024 * 1024,
    });
    // rename is atomic: a concurrent reader sees no helm or a whole one.
    await rename(path.join(scratch, "helm"), target);
    return target;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Path of a helm binary, building it on first use (about a minute with a warm Go module cache). */
export async function helmBinary(): Promise<string> {
  const given = process.env.KRO_TEST_HELM;
  if (given) return given;
  const dir = path.join(cacheRoot(process.env), "tools", `helm-${HELM_VERSION}`);
  const target = path.join(dir, "helm");
  if (
    await access(target).then(
      () => true,
      () => false,
    )
  )
    return target;
  await mkdir(dir, { recursive: true });
  building ??= build(target);
  return building;
}

export class HelmError extends Error {
  override readonly name = "HelmError";
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** Runs helm; rejects with HelmError carrying stderr. */
export async function helm(args: readonly string[]): Promise<string> {
  const binary = await helmBinary();
  try {
    return (await run(binary, args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stderr = "", stdout = "" } = error as { stderr?: string; stdout?: string };
    throw new HelmError(`helm ${args.join(" ")} failed: ${stderr.trim() || stdout.trim()}`, `${stdout}${stderr}`);
  }
}
