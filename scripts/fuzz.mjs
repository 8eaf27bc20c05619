#!/usr/bin/env node
// The long fuzz run (after `npm run build`):
//   npm run fuzz -- --minutes N [--seed S] [--heap-mb M]
// Two fuzzers side by side until the time is up, each in batches with fresh seeds: the YAML reader
// and the compiler here, and the template engine with Sprig over instance-controlled values in a
// worker thread capped at --heap-mb (default 1024) of heap, so running out of memory is seen and
// counted rather than taking the run down. Prints iterations, crashes, out-of-memory ends and each
// crash's input; exits 1 when anything crashed or ran out of memory. The bounded runs are unit tests.
import path from "node:path";
import { Worker } from "node:worker_threads";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
};
const minutes = flag("minutes", 1);
let seed = flag("seed", Date.now() % 2 ** 31);
if (!(minutes > 0)) {
  console.error("fuzz: --minutes must be a positive number");
  process.exit(2);
}
const heapMb = flag("heap-mb", 1024);
const { fuzzCompiler } = await import(path.join(root, "dist/test/unit-support/graph/fuzz.js"));
const deadline = Date.now() + minutes * 60_000;
const templates = fuzzTemplatesInWorker(seed);
let iterations = 0;
const crashes = [];
const seeds = [];
while (Date.now() < deadline) {
  seeds.push(seed);
  const result = fuzzCompiler({ numRuns: 500, seed });
  iterations += result.iterations;
  crashes.push(...result.crashes);
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
}
const t = await templates;
for (const crash of [...crashes, ...t.crashes].slice(0, 20)) console.log(`\n${crash}`);
for (const oom of t.outOfMemory)
  console.log(`\nout of memory (heap limit ${heapMb} MB) rendering:\n${oom.text}\n--- values ---\n${oom.values}`);
console.log(
  `fuzz: YAML reader and compiler: ${iterations} iterations in ${minutes} min (${seeds.length} batches, first seed ${seeds[0]}), ${crashes.length} crashes`,
);
console.log(
  `fuzz: template engine and Sprig, instance-controlled values: ${t.iterations} iterations (${t.templateErrors} ended in a TemplateError, slowest render ${t.slowestMs} ms), ${t.crashes.length} crashes, ${t.outOfMemory.length} out of memory (heap limit ${heapMb} MB)`,
);
process.exit(crashes.length + t.crashes.length + t.outOfMemory.length > 0 ? 1 : 0);

/** Runs the template fuzzer in heap-limited workers until the deadline; a worker that runs out of memory is replaced. */
async function fuzzTemplatesInWorker(firstSeed) {
  const total = { iterations: 0, templateErrors: 0, slowestMs: 0, crashes: [], outOfMemory: [] };
  let workerSeed = firstSeed;
  while (Date.now() < deadline) {
    let last;
    let progress = { iterations: 0, templateErrors: 0, slowestMs: 0 };
    const worker = new Worker(path.join(root, "scripts/fuzz-template-worker.mjs"), {
      workerData: { module: path.join(root, "dist/test/unit-support/template/fuzz.js"), seed: workerSeed, deadline },
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    const end = await new Promise((resolve) => {
      worker.on("message", (m) => {
        if (m.input !== undefined) last = m.input;
        if (m.progress !== undefined) progress = m.progress;
        if (m.done !== undefined) resolve(m.done);
      });
      worker.on("error", (error) => resolve({ error }));
      worker.on("exit", () => resolve({ error: new Error("the worker exited") }));
    });
    await worker.terminate();
    if (end.error === undefined) {
      Object.assign(total, {
        iterations: total.iterations + end.iterations,
        templateErrors: total.templateErrors + end.templateErrors,
        slowestMs: Math.max(total.slowestMs, end.slowestMs),
      });
      total.crashes.push(...end.crashes);
    } else {
      total.iterations += progress.iterations;
      total.templateErrors += progress.templateErrors;
      if (end.error.code === "ERR_WORKER_OUT_OF_MEMORY")
        total.outOfMemory.push(last ?? { text: "(unknown)", values: "" });
      else total.crashes.push(`template worker failed: ${end.error.message}\n--- last input ---\n${last?.text ?? ""}`);
    }
    workerSeed = (workerSeed * 1103515245 + 12345) % 2 ** 31;
  }
  return total;
}
