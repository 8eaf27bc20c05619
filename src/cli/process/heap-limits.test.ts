// The heap limits hold however node is started: measured in fresh node processes
// started without flags, churning the way a controller allocates — many short asynchronous steps
// whose garbage survives a step or two, some of it for good. Heap sizes, not timings.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SEMI_SPACE_MB } from "./heap-limits.js";

const CLI = fileURLToPath(new URL("../main.js", import.meta.url));
const LIMITS = new URL("./heap-limits.js", import.meta.url).href;
const MB = 1024 * 1024;
/** New space at the cap: two semi-spaces. */
const CAP = 2 * SEMI_SPACE_MB * MB;

/** Allocation churn in async steps; prints the largest new space seen, in bytes. Starts when `start` resolves. */
const churn = (start: string) => `
import { getHeapSpaceStatistics } from "node:v8";
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
await ${start};
let max = 0, kept = [];
for (let step = 0; step < 1500; step++) {
  const batch = [];
  for (let i = 0; i < 2000; i++) batch.push({ name: "object-" + i, labels: { step: String(step) }, values: [i, step] });
  kept.push(batch);
  if (kept.length > 3) kept.shift();
  await new Promise((resolve) => setImmediate(resolve));
  max = Math.max(max, newSpace());
}
process.stdout.write(String(max));
`;

function node(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { env: { ...process.env, NODE_OPTIONS: "", ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error === null || stdout !== "") resolve(stdout);
        else reject(new Error(`${error.message}\n${stderr}`));
      },
    );
  });
}

let dir = "";
let server: Server;
const sockets: Socket[] = [];
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kro-heap-limits-"));
  // An API server that accepts connections and never answers: the controller waits on its first request.
  server = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await writeFile(
    path.join(dir, "kubeconfig"),
    [
      "apiVersion: v1",
      "kind: Config",
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
      "users: [{name: u, user: {token: x}}]",
      "contexts: [{name: c, context: {cluster: c, user: u}}]",
      "current-context: c",
    ].join("\n"),
  );
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Old-generation growth: a tenth of each step's objects kept for good; prints the largest heap committed. */
const growth = (start: string) => `
import { getHeapStatistics } from "node:v8";
await ${start};
let peak = 0;
const live = [];
for (let step = 0; step < 400; step++) {
  await new Promise((resolve) => setImmediate(resolve));
  const batch = [];
  for (let i = 0; i < 5000; i++) batch.push({ a: i, s: "x".repeat(20) + i, list: [i, i + 1] });
  live.push(batch.slice(0, 500));
  if (live.length > 200) live.splice(0, 50);
  globalThis.recent = batch;
  peak = Math.max(peak, getHeapStatistics().total_heap_size);
}
process.stdout.write(String(peak));
`;

describe("the heap of a long-running command", () => {
  it("without the cap, the same churn grows new space past the image's two semi-spaces (the test can see it)", async () => {
    const file = path.join(dir, "plain.mjs");
    await writeFile(file, churn("Promise.resolve()"));
    assert.ok(Number(await node([file])) > CAP);
  });

  it("capYoungGeneration keeps new space at two SEMI_SPACE_MB semi-spaces without any node flag", async () => {
    const file = path.join(dir, "capped.mjs");
    await writeFile(file, churn(`import(${JSON.stringify(LIMITS)}).then((m) => m.capYoungGeneration())`));
    const max = Number(await node([file]));
    assert.ok(max > 0 && max <= CAP, `new space ${max / MB} MB`);
  });

  it("limitOldGenerationGrowth keeps the old generation's garbage bounded", async () => {
    // Measured: ~50 MB committed with the limit, ~110 MB without, for the same ~35 MB live.
    await writeFile(path.join(dir, "growth-plain.mjs"), growth("Promise.resolve()"));
    await writeFile(
      path.join(dir, "growth-limited.mjs"),
      growth(`import(${JSON.stringify(LIMITS)}).then((m) => m.limitOldGenerationGrowth())`),
    );
    // Both with the image's young generation, as the controller runs.
    const plain = Number(await node([`--max-semi-space-size=${SEMI_SPACE_MB}`, path.join(dir, "growth-plain.mjs")]));
    const limited = Number(
      await node([`--max-semi-space-size=${SEMI_SPACE_MB}`, path.join(dir, "growth-limited.mjs")]),
    );
    assert.ok(limited < plain * 0.75, `limited ${(limited / MB).toFixed(1)} MB, plain ${(plain / MB).toFixed(1)} MB`);
  });

  it("`node …/main.js controller` typed by hand gets the cap before the controller's code runs", async () => {
    // Churns once the controller sends its first request (the cap is set before anything loads).
    const max = await controllerChurn();
    assert.ok(max > 0 && max <= CAP, `new space ${max / MB} MB`);
  });

  it("`node …/main.js controller` holds new space at its initial size until it has started (it never does here)", async () => {
    // The API server never answers, so the controller never becomes ready: young-generation.ts holds.
    const max = await controllerChurn();
    assert.ok(max > 0 && max <= 2 * MB, `new space ${max / MB} MB`);
  });

  it("`node …/main.js controller` gives a burst's garbage back once the burst is over (idle-collection.ts)", async () => {
    // Promotes ~30 MB of garbage, then rests: one forced full collection (the one `gc()` runs) follows.
    const out = await inController(`
const { PerformanceObserver, constants } = await import("node:perf_hooks");
let forced = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR && (e.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) forced++;
}).observe({ entryTypes: ["gc"] });
let kept = [];
for (let step = 0; step < 200; step++) {
  const batch = [];
  for (let i = 0; i < 5000; i++) batch.push({ name: "object-" + i + "-" + step, values: [i, step] });
  kept.push(batch);
  if (kept.length > 40) kept.shift();
  await new Promise((resolve) => setImmediate(resolve));
}
kept = [];
await new Promise((resolve) => setTimeout(resolve, 7000));
process.stdout.write(String(forced));`);
    assert.ok(Number(out) >= 1, `forced full collections: ${out}`);
  });
});

/** The real entry, `controller` with no node flag, churning from its first request on; the largest new space seen. */
async function controllerChurn(): Promise<number> {
  const out = await inController(
    churn("Promise.resolve()").replace(/^import .*$/m, 'const { getHeapSpaceStatistics } = await import("node:v8");'),
  );
  const max = Number(out);
  assert.ok(Number.isFinite(max), `output ${JSON.stringify(out)}`);
  return max;
}

let preloads = 0;
/** Runs `code` (no static imports) inside the real entry, `controller` with no node flag, once it sends its first request; what it printed. */
async function inController(code: string): Promise<string> {
  const preload = path.join(dir, `preload-${++preloads}.mjs`);
  await writeFile(
    preload,
    `
import { subscribe } from "node:diagnostics_channel";
const started = new Promise((resolve) => subscribe("http.client.request.start", resolve));
started.then(async () => {
  ${code}
  process.exit(0);
});
`,
  );
  return node([
    "--import",
    pathToFileURL(preload).href,
    CLI,
    "controller",
    "--kubeconfig",
    path.join(dir, "kubeconfig"),
    "--metrics-bind-address",
    "0",
    "--health-probe-bind-address",
    "0",
    "--log-level",
    "fatal",
  ]);
}
