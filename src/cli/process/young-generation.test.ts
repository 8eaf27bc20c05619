// The young generation grows only once started and under sustained allocation: the rules alone,
// then in fresh node processes without flags (new-space sizes, not timings).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { AllocationRate, BUSY_BYTES_PER_SECOND, growthFactor } from "./young-generation.js";

const MB = 1024 * 1024;
const GOVERNOR = new URL("./young-generation.js", import.meta.url).href;

describe("AllocationRate", () => {
  it("is busy only when each of the last two seconds allocated the busy rate", () => {
    const rate = new AllocationRate();
    const half = BUSY_BYTES_PER_SECOND / 2;
    for (let t = 0; t < 2000; t += 250) rate.record(t, half); // 4 × half per second
    assert.equal(rate.busy(1999), true);
    assert.equal(rate.busy(2600), false, "the second before 2600 ms allocated less");
  });

  it("a burst inside one second is not sustained", () => {
    const rate = new AllocationRate();
    for (let t = 1000; t < 1300; t += 10) rate.record(t, MB);
    assert.equal(rate.busy(1300), false);
  });

  it("forgets what came before clear()", () => {
    const rate = new AllocationRate();
    for (let t = 0; t < 2000; t += 100) rate.record(t, MB);
    rate.clear();
    assert.equal(rate.busy(2000), false);
  });
});

describe("growthFactor", () => {
  const cap = 8 * MB;
  it("holds until started, when idle, and at the cap", () => {
    assert.equal(growthFactor({ started: false, busy: true, newSpaceBytes: 2 * MB, capBytes: cap }), 1);
    assert.equal(growthFactor({ started: true, busy: false, newSpaceBytes: 2 * MB, capBytes: cap }), 1);
    assert.equal(growthFactor({ started: true, busy: true, newSpaceBytes: cap, capBytes: cap }), 1);
  });

  it("grows when started and busy below the cap, or with no cap of ours", () => {
    assert.equal(growthFactor({ started: true, busy: true, newSpaceBytes: 2 * MB, capBytes: cap }), 2);
    assert.equal(growthFactor({ started: true, busy: true, newSpaceBytes: 64 * MB, capBytes: undefined }), 2);
  });
});

/**
 * Allocation in async steps, as a controller allocates (garbage that survives a step or two);
 * prints the largest new space seen. `bursts`: 300 ms of churn then 2.5 s of rest, three times.
 */
const churn = (setup: string, mode: "sustained" | "bursts") => `
import { getHeapSpaceStatistics } from "node:v8";
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
const governor = await import(${JSON.stringify(GOVERNOR)});
${setup}
let max = 0, kept = [];
const work = async (ms) => {
  const until = performance.now() + ms;
  for (let step = 0; performance.now() < until; step++) {
    const batch = [];
    for (let i = 0; i < 2000; i++) batch.push({ name: "object-" + i, labels: { step: String(step) }, values: [i, step] });
    kept.push(batch);
    if (kept.length > 3) kept.shift();
    await new Promise((resolve) => setImmediate(resolve));
    max = Math.max(max, newSpace());
  }
};
if (${JSON.stringify(mode)} === "sustained") await work(4000);
else for (let i = 0; i < 3; i++) { await work(300); await new Promise((r) => setTimeout(r, 2500)); max = Math.max(max, newSpace()); }
process.stdout.write(String(max));
`;

function node(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file],
      { env: { ...process.env, NODE_OPTIONS: "" }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error === null) resolve(Number(stdout));
        else reject(new Error(`${error.message}\n${stderr}`));
      },
    );
  });
}

let dir = "";
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kro-young-generation-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function maxNewSpace(name: string, setup: string, mode: "sustained" | "bursts"): Promise<number> {
  const file = path.join(dir, `${name}.mjs`);
  await writeFile(file, churn(setup, mode));
  return node(file);
}

describe("governYoungGeneration in a process without flags", () => {
  it("held until started: sustained churn leaves new space at its initial size", async () => {
    const max = await maxNewSpace(
      "held",
      "governor.governYoungGeneration({ capMb: 4, holdUntilStarted: true });",
      "sustained",
    );
    assert.ok(max > 0 && max <= 2 * MB, `new space ${max / MB} MB`);
  });

  it("once started, sustained churn grows new space up to the cap", async () => {
    const max = await maxNewSpace(
      "started",
      "governor.governYoungGeneration({ capMb: 4, holdUntilStarted: true }).started();",
      "sustained",
    );
    assert.ok(max > 2 * MB && max <= 8 * MB, `new space ${max / MB} MB`);
  });

  it("once started, short bursts with rest between them do not grow it", async () => {
    const max = await maxNewSpace(
      "bursts",
      "governor.governYoungGeneration({ capMb: 4, holdUntilStarted: true }).started();",
      "bursts",
    );
    assert.ok(max > 0 && max <= 2 * MB, `new space ${max / MB} MB`);
  });
});
