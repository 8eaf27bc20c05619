#!/usr/bin/env node
// The long fuzz run of the YAML reader and the compiler (after `npm run build`):
//   npm run fuzz -- --minutes N [--seed S]
// Runs batches with fresh seeds until the time is up; prints iterations and crashes, and each
// crash's input; exits 1 when anything crashed. The bounded run is part of the unit tests.
import path from "node:path";

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
const { fuzzCompiler } = await import(path.join(root, "dist/test/unit-support/graph/fuzz.js"));
const deadline = Date.now() + minutes * 60_000;
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
for (const crash of crashes.slice(0, 20)) console.log(`\n${crash}`);
console.log(`fuzz: ${iterations} iterations in ${minutes} min (${seeds.length} batches, first seed ${seeds[0]}), ${crashes.length} crashes`);
process.exit(crashes.length > 0 ? 1 : 0);
