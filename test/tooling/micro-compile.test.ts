// The compile micro-benchmark's fixture is a valid, fully typed RGD of the requested size, and
// bench/micro-compile.mjs prints the JSON `npm run bench` reads. No timings are asserted.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { schemaResolverFor } from "../../src/cli/inputs/inputs.js";
import { compileRgd } from "../../src/graph/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
type Generator = (resources?: number) => unknown;
const { typedRgd } = (await import(pathToFileURL(path.join(ROOT, "bench/fixtures/typed-rgd.mjs")).href)) as {
  typedRgd: Generator;
};

describe("bench: micro-compile", () => {
  it("generates a 100-resource RGD that compiles without errors against built-in schemas", async () => {
    const result = compileRgd(typedRgd(), { resolver: await schemaResolverFor() });
    assert.deepEqual(
      result.issues.filter((i) => i.severity === "error"),
      [],
    );
    assert.ok(result.graph);
    assert.equal(result.graph.nodes.length, 100);
    assert.deepEqual(
      new Set(result.graph.nodes.map((n) => n.kind)),
      new Set(["ConfigMap", "Deployment", "Service", "Secret"]),
    );
    assert.equal(Math.max(...result.graph.nodes.map((n) => n.wave)), 4);
  });

  it("is deterministic, sized as asked, and rejects a bad size", () => {
    assert.deepEqual(typedRgd(7), typedRgd(7));
    assert.equal((typedRgd(7) as { spec: { resources: unknown[] } }).spec.resources.length, 7);
    assert.throws(() => typedRgd(0), /positive integer/);
  });

  it("prints one JSON object with the median", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      path.join(ROOT, "bench/micro-compile.mjs"),
      "--runs",
      "2",
      "--warmup",
      "0",
      "--resources",
      "12",
    ]);
    const report = JSON.parse(stdout) as {
      benchmark: string;
      resources: number;
      runs: number;
      medianMs: number;
      samplesMs: number[];
    };
    assert.equal(report.benchmark, "micro-compile");
    assert.equal(report.resources, 12);
    assert.equal(report.runs, 2);
    assert.equal(report.samplesMs.length, 2);
    assert.equal(typeof report.medianMs, "number");
  });
});
