/**
 * The real Go YAML reader Kubernetes uses (sigs.k8s.io/yaml.YAMLToJSON, go/yaml-oracle), built once
 * into the kro-ts cache (keyed by the oracle's source, so an edit rebuilds it) and run as a batch:
 * the reference for src/api's YAML reader and writer, and the reader of `helm template`'s output in
 * the differential chart tests (so that those never judge kro-ts's reader with itself).
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { access, mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cacheRoot } from "../../src/localcluster/index.js";

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL("../../../go/yaml-oracle/", import.meta.url));

let building: Promise<string> | undefined;

async function build(): Promise<string> {
  const hash = createHash("sha256");
  for (const file of ["main.go", "go.mod", "go.sum"]) hash.update(await readFile(path.join(SOURCE, file)));
  const dir = path.join(cacheRoot(process.env), "tools");
  const target = path.join(dir, `yaml-oracle-${hash.digest("hex").slice(0, 12)}`);
  if (
    await access(target).then(
      () => true,
      () => false,
    )
  )
    return target;
  await mkdir(dir, { recursive: true });
  const scratch = await mkdtemp(`${target}.build-`);
  try {
    await run("go", ["build", "-o", path.join(scratch, "yaml-oracle"), "."], {
      cwd: SOURCE,
      env: { ...process.env, GOFLAGS: "-buildvcs=false -mod=mod", GOWORK: "off" },
      maxBuffer: 16 * 1024 * 1024,
    });
    await rename(path.join(scratch, "yaml-oracle"), target);
    return target;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export type GoRead = { readonly json: unknown } | { readonly err: string };

/** Each text read by sigs.k8s.io/yaml.YAMLToJSON (first document only, as that function does). */
export async function goYamlToJson(texts: readonly string[]): Promise<GoRead[]> {
  const binary = await (building ??= build());
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
      else reject(new Error(`yaml-oracle exited ${String(code)}: ${Buffer.concat(err).toString("utf8")}`));
    });
    child.stdin.end(JSON.stringify(texts));
  });
  const results = JSON.parse(stdout) as { json?: string; err?: string }[];
  return results.map((r) => (r.json !== undefined ? { json: JSON.parse(r.json) as unknown } : { err: r.err ?? "" }));
}

/** A multi-document stream (e.g. `helm template`'s output) split on `---` lines and read by Go; empty documents dropped. */
export async function goYamlDocuments(stream: string): Promise<unknown[]> {
  const parts = stream.split(/^---[ \t]*(?:#.*)?$/m).filter((p) => p.replace(/^\s*#.*$/gm, "").trim() !== "");
  const read = await goYamlToJson(parts);
  return read.flatMap((r, i) => {
    if ("err" in r) throw new Error(`Go's YAML reader refused document ${i + 1}: ${r.err}`);
    return r.json === null ? [] : [r.json];
  });
}
