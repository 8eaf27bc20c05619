// The template half of `npm run fuzz` (scripts/fuzz.mjs), in a worker thread with a heap limit so
// an out-of-memory render ends this worker, is counted, and names its input (posted before each render).
import { parentPort, workerData } from "node:worker_threads";

const { fuzzTemplates } = await import(workerData.module);
let seed = workerData.seed;
let iterations = 0;
let templateErrors = 0;
let slowestMs = 0;
const crashes = [];
while (Date.now() < workerData.deadline) {
  const result = fuzzTemplates({
    numRuns: 200,
    seed,
    onInput: (text, values) =>
      parentPort.postMessage({ input: { text, values: JSON.stringify(values).slice(0, 2000) } }),
  });
  iterations += result.iterations;
  templateErrors += result.templateErrors;
  slowestMs = Math.max(slowestMs, result.slowestMs);
  crashes.push(...result.crashes);
  parentPort.postMessage({ progress: { iterations, templateErrors, slowestMs, crashes: crashes.length } });
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
}
parentPort.postMessage({ done: { iterations, templateErrors, slowestMs, crashes } });
