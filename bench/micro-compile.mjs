#!/usr/bin/env node
// Micro-benchmark: compile time of a 100-resource typed RGD (bench/fixtures/typed-rgd.mjs)
// against the bundled built-in schemas. Prints one JSON object; `npm run bench` calls it.
// Run after `npm run build`. Usage: node bench/micro-compile.mjs [--runs N] [--resources N] [--warmup N]
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { typedRgd } from "./fixtures/typed-rgd.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer`);
  return value;
};
const runs = Math.max(1, option("runs", 20));
const warmup = option("warmup", 3);
const resources = option("resources", 100);

const { compileRgd } = await import(path.join(root, "dist/src/graph/index.js"));
const { createKroCelEnvironment } = await import(path.join(root, "dist/src/expr/index.js"));
const { schemaResolverFor } = await import(path.join(root, "dist/src/cli/inputs/inputs.js"));

const rgd = typedRgd(resources);
const resolver = await schemaResolverFor();
// One environment shared by every compile, as the controller does.
const env = createKroCelEnvironment({ enableRuntime: true });

const compileOnce = () => {
  const result = compileRgd(rgd, { resolver, env });
  if (result.graph === undefined) {
    const errors = result.issues.filter((i) => i.severity === "error");
    throw new Error(`the benchmark RGD does not compile: ${JSON.stringify(errors.slice(0, 3))}`);
  }
  return result.graph;
};

for (let i = 0; i < warmup; i++) compileOnce();
const samples = [];
let nodes = 0;
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  nodes = compileOnce().nodes.length;
  samples.push(performance.now() - started);
}
const sorted = [...samples].sort((a, b) => a - b);
const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const round = (ms) => Math.round(ms * 1000) / 1000;
process.stdout.write(
  `${JSON.stringify({
    benchmark: "micro-compile",
    resources: nodes,
    runs,
    warmup,
    medianMs: round(
      sorted.length % 2 === 1 ? at(0.5) : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2,
    ),
    minMs: round(sorted[0]),
    p90Ms: round(at(0.9)),
    maxMs: round(sorted[sorted.length - 1]),
    samplesMs: samples.map(round),
    node: process.version,
    cores: os.cpus().length,
  })}\n`,
);
