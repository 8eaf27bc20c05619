#!/usr/bin/env node
// Benchmark: how soon `kro lsp` publishes diagnostics after an edit of a ~300-line RGD, and
// whether its memory stays bounded over a long editing session. Latency: drives the real process
// over stdio as an editor does (bench/fixtures/typed-rgd.mjs, written as YAML), with --debounce 1
// so what is measured is the server's own work: from didChange sent to publishDiagnostics
// received for that version. Memory: the same server in this process over in-memory pipes, its
// heap measured after a full GC every `--soak`/6 edits (RSS alone says little: V8 gives memory
// back lazily). Edits alternate between a mistake (a misspelt field) and its fix, so every
// publish follows a full compile. Prints one JSON object. Needs no cluster.
// Run after `npm run build`. Usage: node bench/lsp-diagnostics.mjs [--lines N] [--edits N] [--soak N]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { PassThrough } from "node:stream";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { stringify } from "yaml";
import { typedRgd } from "./fixtures/typed-rgd.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
};
const targetLines = option("lines", 300);
const edits = option("edits", 60);
const soak = option("soak", 1000);

const { LspClient } = await import(path.join(root, "dist/test/unit-support/lsp/lsp-client.js"));
const { startLanguageServer } = await import(path.join(root, "dist/src/cli/lsp/server.js"));
const { createKroCelEnvironment } = await import(path.join(root, "dist/src/expr/index.js"));
const { schemaResolverFor } = await import(path.join(root, "dist/src/cli/inputs/inputs.js"));
const { createConnection, ProposedFeatures } = await import("vscode-languageserver/node");
v8.setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

/** The typed RGD with the fewest resources whose YAML has at least `targetLines` lines. */
function rgdText() {
  for (let resources = 4; ; resources++) {
    const rgd = typedRgd(resources);
    const text = stringify({ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", ...rgd });
    if (text.split("\n").length >= targetLines) return { text, resources };
  }
}
const { text: valid, resources } = rgdText();
const broken = valid.replace("${schema.spec.image}", "${schema.spec.imag}");
if (broken === valid) throw new Error("the benchmark RGD has no ${schema.spec.image} to misspell");

const child = spawn(process.execPath, [path.join(root, "dist/src/cli/main.js"), "lsp", "--debounce", "1"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const client = new LspClient(child.stdout, child.stdin);
const rssMb = () => {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

const uri = "file:///bench/typed-rgd.yaml";
await client.initialize();
await client.open(uri, valid);
const first = await client.nextDiagnostics(uri);
if (first.diagnostics.length !== 0) throw new Error(`the benchmark RGD has problems: ${first.diagnostics[0].message}`);

let version = 1;
/** One edit and the diagnostics it leads to; checks they are the ones expected. */
async function edit(client) {
  version++;
  const mistaken = version % 2 === 0;
  const started = performance.now();
  await client.change(uri, mistaken ? broken : valid, version);
  const published = await client.nextDiagnostics(uri);
  const elapsed = performance.now() - started;
  if (published.version !== version || published.diagnostics.length > 0 !== mistaken)
    throw new Error(`unexpected diagnostics for version ${version}: ${JSON.stringify(published).slice(0, 300)}`);
  return elapsed;
}

for (let i = 0; i < 5; i++) await edit(client);
const samples = [];
for (let i = 0; i < edits; i++) samples.push(await edit(client));
const rssMbAfterEdits = rssMb();
await client.request("shutdown", null);
await client.notify("exit", null);
client.connection.dispose();

// The same server in this process, its heap after a full GC as the session goes on.
const toServer = new PassThrough();
const toClient = new PassThrough();
startLanguageServer(createConnection(ProposedFeatures.all, toServer, toClient), {
  compile: { resolver: await schemaResolverFor(), env: createKroCelEnvironment({ enableRuntime: true }) },
  timers: { set: (run, ms) => setTimeout(run, ms), clear: (handle) => clearTimeout(handle) },
  debounceMs: 1,
});
const inProcess = new LspClient(toClient, toServer);
await inProcess.initialize();
version = 1;
await inProcess.open(uri, valid);
await inProcess.nextDiagnostics(uri);
const heapMbAfterGc = [];
for (let i = 1; i <= soak; i++) {
  await edit(inProcess);
  if (i % Math.max(1, Math.floor(soak / 6)) === 0) {
    gc();
    heapMbAfterGc.push(Math.round(process.memoryUsage().heapUsed / 1e5) / 10);
  }
}
inProcess.connection.dispose();

const sorted = [...samples].sort((a, b) => a - b);
const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const round = (ms) => Math.round(ms * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    benchmark: "lsp-diagnostics",
    lines: valid.split("\n").length,
    resources,
    edits,
    medianMs: round(at(0.5)),
    p90Ms: round(at(0.9)),
    maxMs: round(sorted[sorted.length - 1]),
    rssMbAfterEdits,
    soakEdits: soak,
    heapMbAfterGc,
    node: process.version,
    cores: os.cpus().length,
  })}\n`,
);
