// One full collection once a burst of work is over: the rule alone, then in fresh node processes
// without flags (collections counted and heap sizes, not timings).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GROWTH_BYTES, QUIET_MS, shouldCollect } from "./idle-collection.js";

const MB = 1024 * 1024;
const MODULE = new URL("./idle-collection.js", import.meta.url).href;

describe("shouldCollect", () => {
  it("collects only when the heap grew enough and the burst is over", () => {
    const baselineBytes = 30 * MB;
    assert.equal(
      shouldCollect({ heapBytes: baselineBytes + GROWTH_BYTES, baselineBytes, sinceScavengeMs: QUIET_MS }),
      true,
    );
    assert.equal(
      shouldCollect({ heapBytes: baselineBytes + GROWTH_BYTES - 1, baselineBytes, sinceScavengeMs: 60_000 }),
      false,
      "idle, but nothing to collect",
    );
    assert.equal(
      shouldCollect({ heapBytes: baselineBytes + 10 * GROWTH_BYTES, baselineBytes, sinceScavengeMs: QUIET_MS - 1 }),
      false,
      "still working",
    );
  });
});

/**
 * A burst that promotes garbage (batches kept for a few async steps, as requests in flight are),
 * then 7 s without work; prints what the idle collection did and the committed heap before
 * and after the rest. `mode` "busy" never rests: the work goes on through the whole window.
 */
const script = (mode: "burst" | "busy" | "idle") => `
import { getHeapStatistics } from "node:v8";
const { collectWhenIdle } = await import(${JSON.stringify(MODULE)});
const idle = collectWhenIdle();
const heap = () => getHeapStatistics().total_heap_size;
let kept = [];
// Bounded by steps (the same garbage however loaded the machine) or, for "busy", by time.
const work = async (steps, ms = Infinity) => {
  const until = performance.now() + ms;
  for (let step = 0; step < steps && performance.now() < until; step++) {
    const batch = [];
    for (let i = 0; i < 5000; i++) batch.push({ name: "object-" + i + "-" + step, labels: { step: String(step) }, values: [i, step] });
    kept.push(batch);
    if (kept.length > 40) kept.shift();
    await new Promise((resolve) => setImmediate(resolve));
  }
  kept = [];
};
if (${JSON.stringify(mode)} === "burst") await work(200);
if (${JSON.stringify(mode)} === "busy") await work(Infinity, 7000);
const before = heap();
if (${JSON.stringify(mode)} !== "busy") await new Promise((resolve) => setTimeout(resolve, 7000));
process.stdout.write(JSON.stringify({ collections: idle.collections, before, after: heap() }));
idle.stop();
`;

function node(file: string): Promise<{ collections: number; before: number; after: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file],
      { env: { ...process.env, NODE_OPTIONS: "" }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error === null) resolve(JSON.parse(stdout) as { collections: number; before: number; after: number });
        else reject(new Error(`${error.message}\n${stderr}`));
      },
    );
  });
}

describe("collectWhenIdle in a process started without flags", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kro-idle-collection-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const run = async (mode: "burst" | "busy" | "idle") => {
    const file = path.join(dir, `${mode}.mjs`);
    await writeFile(file, script(mode));
    return node(file);
  };

  it("collects once after a burst and gives the burst's garbage back", async () => {
    const result = await run("burst");
    assert.equal(result.collections, 1, JSON.stringify(result));
    assert.ok(
      result.before - result.after >= GROWTH_BYTES,
      `the committed heap shrank by ${((result.before - result.after) / MB).toFixed(1)} MB: ${JSON.stringify(result)}`,
    );
  });

  it("does not collect while the work goes on, nor when nothing grew", async () => {
    const [busy, idle] = await Promise.all([run("busy"), run("idle")]);
    assert.equal(busy.collections, 0, `busy: ${JSON.stringify(busy)}`);
    assert.equal(idle.collections, 0, `idle: ${JSON.stringify(idle)}`);
  });
});
