// bench/cli-start.mjs: `kro import helm` against `helm template` in alternating
// rounds, as one JSON object docs/performance.md quotes. A stand-in helm keeps this offline and
// fast; no timing is asserted, only what is measured and that a failing command fails the run.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SCRIPT = path.join(ROOT, "bench/cli-start.mjs");

let dir = "";
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kro-cli-start-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A helm that records its arguments and exits with `code`. */
async function fakeHelm(code: number): Promise<{ helm: string; log: string }> {
  const log = path.join(dir, `helm-${code}.log`);
  const helm = path.join(dir, `helm-${code}`);
  await writeFile(helm, `#!/bin/sh\necho "$@" >> ${JSON.stringify(log)}\nexit ${code}\n`);
  await chmod(helm, 0o755);
  await writeFile(log, "");
  return { helm, log };
}

function run(helm: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, ...args],
      { cwd: ROOT, env: { ...process.env, KRO_TEST_HELM: helm } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
      },
    );
  });
}

interface Figure {
  best: number;
  median: number;
  samplesMs: number[];
}

describe("bench: cli-start", () => {
  it("times kro import helm, helm template of the same chart and node's own start, runs times each", async () => {
    const { helm, log } = await fakeHelm(0);
    const result = await run(helm, ["--runs", "2", "--chart", "examples/helm-nginx/chart"]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.equal(report.benchmark, "cli-start");
    assert.equal(report.chart, "examples/helm-nginx/chart");
    assert.equal(report.runs, 2);
    const helmRuns = (await readFile(log, "utf8")).trim().split("\n");
    assert.deepEqual(helmRuns, Array(2).fill(`template chart ${path.join(ROOT, "examples/helm-nginx/chart")}`));
    for (const name of ["helmTemplate", "nodeStart", "kroImport"]) {
      const figure = report[name] as Figure;
      assert.equal(figure.samplesMs.length, 2, name);
      assert.equal(figure.best, Math.min(...figure.samplesMs), name);
    }
    const kro = report.kroImport as Figure;
    const helmFigure = report.helmTemplate as Figure;
    assert.equal(report.ratioBest, Math.round((kro.best / helmFigure.best) * 100) / 100);
  });

  it("fails when a command fails, naming it", async () => {
    const { helm } = await fakeHelm(3);
    const result = await run(helm, ["--runs", "1"]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /template umbrella .*exit 3/);
  });
});
