#!/usr/bin/env node
// CLI start: `kro import helm CHART` against `helm template` of the same chart,
// each a fresh process, in alternating rounds so that drifting load falls on all of them alike;
// `node -e 0` beside them is Node's own start, the floor of any kro command. kro runs as an
// installed `kro` runs: the bin file itself, so its shebang's node flags apply.
// Prints one JSON object (best and median per command, ratios to helm). Run after `npm run build`.
// Usage: node bench/cli-start.mjs [--runs N] [--chart DIR]   (helm: $KRO_TEST_HELM, else the tests' cached build)
import { spawnSync } from "node:child_process";
import { chmod } from "node:fs/promises";
import path from "node:path";
import { summarize, round } from "./lib/stats.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const runs = Number(option("runs", "10"));
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive integer");
const chart = path.resolve(root, option("chart", "test/fixtures/helm/umbrella"));
// The helm the chart tests compare against (built once from its Go module, then cached).
const { helmBinary } = await import(path.join(root, "dist/test/support/helm.js"));
const helm = await helmBinary();
const kro = path.join(root, "dist/src/cli/main.js");
await chmod(kro, 0o755); // as npm does on install

const release = path.basename(chart);
const commands = {
  helmTemplate: [helm, "template", release, chart],
  nodeStart: [process.execPath, "-e", "0"],
  kroImport: [kro, "import", "helm", chart],
};
const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
for (let r = 0; r < runs; r++) {
  for (const [name, [file, ...args]] of Object.entries(commands)) {
    const started = process.hrtime.bigint();
    const result = spawnSync(file, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0)
      throw new Error(`${[file, ...args].join(" ")}: exit ${result.status ?? result.signal}\n${result.stderr}`);
    samples[name].push(ms);
  }
}
const stats = Object.fromEntries(
  Object.entries(samples).map(([name, s]) => [
    name,
    { best: round(Math.min(...s), 1), median: round(summarize(s).median, 1), samplesMs: s.map((x) => round(x, 1)) },
  ]),
);
console.log(
  JSON.stringify(
    {
      benchmark: "cli-start",
      chart: path.relative(root, chart),
      runs,
      ...stats,
      // The target is ≤ 2 (docs/performance.md, "CLI start").
      ratioBest: round(stats.kroImport.best / stats.helmTemplate.best, 2),
      ratioMedian: round(stats.kroImport.median / stats.helmTemplate.median, 2),
    },
    null,
    2,
  ),
);
