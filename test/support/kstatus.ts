/**
 * Oracles for GitOps health: sigs.k8s.io/cli-utils kstatus (go/kstatus-oracle, built once from its
 * Go module into the kro-ts cache, keyed by the oracle's source so an edit rebuilds it) and the
 * Argo CD Lua health check of docs/gitops/argocd-health.lua run by a real Lua interpreter
 * (`lua5.4`, Debian package lua5.4; $KRO_TEST_LUA points at another).
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { access, mkdir, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cacheRoot } from "../../src/localcluster/index.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ORACLE_DIR = path.join(ROOT, "go/kstatus-oracle");

export interface KstatusVerdict {
  readonly status: string;
  readonly message: string;
  readonly error?: string;
}

let building: Promise<string> | undefined;

async function oracleBinary(): Promise<string> {
  const source = await Promise.all(["go.mod", "go.sum", "main.go"].map((f) => readFile(path.join(ORACLE_DIR, f))));
  const hash = createHash("sha256").update(Buffer.concat(source)).digest("hex").slice(0, 12);
  const target = path.join(cacheRoot(process.env), "tools", `kstatus-oracle-${hash}`);
  if (
    await access(target).then(
      () => true,
      () => false,
    )
  )
    return target;
  building ??= (async () => {
    await mkdir(path.dirname(target), { recursive: true });
    const scratch = `${target}.${process.pid}.tmp`;
    await run("go", ["build", "-o", scratch, "."], {
      cwd: ORACLE_DIR,
      env: { ...process.env, GOFLAGS: "-buildvcs=false", GOWORK: "off" },
      maxBuffer: 1 << 24,
    });
    await rename(scratch, target); // atomic: a concurrent reader sees no binary or a whole one
    return target;
  })();
  return building;
}

function pipe(command: string, args: readonly string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} exited ${String(code)}: ${err}`));
    });
    child.stdin.end(input);
  });
}

/** kstatus's verdict (status.Compute) on each object. */
export async function kstatus(objects: readonly unknown[]): Promise<KstatusVerdict[]> {
  const out = await pipe(await oracleBinary(), [], objects.map((o) => JSON.stringify(o)).join("\n") + "\n");
  return out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as KstatusVerdict);
}

/** A JSON value as a Lua table constructor (what Argo CD hands a health script as `obj`). */
export function luaLiteral(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string")
    return JSON.stringify(value).replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => `\\u{${h}}`);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(", ")}}`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `[${luaLiteral(k)}] = ${luaLiteral(v)}`)
    .join(", ")}}`;
}

export interface ArgoHealth {
  readonly status: string;
  readonly message: string;
}

/** Runs docs/gitops/argocd-health.lua on an object, as Argo CD does (a global `obj`, a returned table). */
export async function argoHealth(object: unknown): Promise<ArgoHealth> {
  const script = await readFile(path.join(ROOT, "docs/gitops/argocd-health.lua"), "utf8");
  const program = `obj = ${luaLiteral(object)}\nlocal hs = (function()\n${script}\nend)()\nio.write(hs.status, "\\t", hs.message or "")\n`;
  const out = await pipe(process.env.KRO_TEST_LUA ?? "lua5.4", ["-"], program);
  const [status = "", ...message] = out.split("\t");
  return { status, message: message.join("\t") };
}
