// `npm run bench` end to end on a tiny size: it starts its own minimal control plane and the
// controller subprocess, runs every scenario, prints the table and writes one JSON file per
// scenario with the fields docs/performance.md relies on. Shapes only: no timing is asserted.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const run = promisify(execFile);
type Json = Record<string, unknown>;
type ParseArgs = (argv: string[]) => Json & { scenarios: string[] };
const { parseArgs } = (await import(pathToFileURL(path.join(ROOT, "bench/lib/args.mjs")).href)) as {
  parseArgs: ParseArgs;
};

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const obj = (v: unknown): Json => {
  assert.ok(typeof v === "object" && v !== null && !Array.isArray(v), `expected an object, got ${JSON.stringify(v)}`);
  return v as Json;
};

describe("bench: npm run bench", () => {
  let out: string;
  let stdout = "";
  let stderr = "";
  const results = new Map<string, Json>();

  before(async () => {
    out = await mkdtemp(path.join(tmpdir(), "kro-bench-test-"));
    ({ stdout, stderr } = await run(
      process.execPath,
      [
        path.join(ROOT, "bench/run.mjs"),
        "--scenario",
        "all",
        "--instances",
        "3",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--drifts",
        "2",
        "--deletions",
        "2",
        "--idle-seconds",
        "1",
        "--out",
        out,
      ],
      { cwd: ROOT, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 },
    ));
    for (const file of await readdir(out)) {
      const result = JSON.parse(await readFile(path.join(out, file), "utf8")) as Json;
      results.set(String(result.scenario), result);
      assert.match(file, new RegExp(`^${String(result.scenario)}-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z\\.json$`));
    }
  });
  after(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("writes one JSON file per scenario with the environment it ran in", () => {
    assert.deepEqual([...results.keys()].sort(), ["depth", "fanout", "micro", "steady"]);
    for (const result of results.values()) {
      const env = obj(result.environment);
      assert.ok(isNumber(env.cores) && env.cores >= 1);
      assert.deepEqual(env.controller, { workers: 4, clientQps: 100, clientBurst: 150, nodeFlags: "image" });
      assert.match(String(env.node), /^v\d+/);
    }
    assert.match(String(obj(results.get("fanout")?.environment).kubernetes), /^v1\.\d+/);
  });

  it("fan-out: every instance Ready, the null baseline beside it, requests and memory per repetition", () => {
    const fanout = obj(results.get("fanout"));
    assert.equal(fanout.instances, 3);
    const [rep, ...rest] = fanout.repetitions as Json[];
    assert.equal(rest.length, 0);
    const r = obj(rep);
    assert.equal(r.children, 18);
    for (const k of [
      "baselineMs",
      "convergeMs",
      "ratioToBaseline",
      "cpuSeconds",
      "convergedRssMb",
      "peakRssMb",
      "writesPerInstance",
    ])
      assert.ok(isNumber(r[k]), k);
    assert.equal(obj(r.timeToReadyMs).n, 3);
    // The controller applied each of the six children at least once per instance.
    assert.ok(Number(obj(r.requestsPerInstanceByVerb).APPLY) >= 6, JSON.stringify(r.requestsPerInstanceByVerb));
    assert.ok(isNumber(obj(obj(fanout.summary).ratioToBaseline).median));
  });

  it("depth: chain timings per level, the update storm and CEL counts", () => {
    const depth = obj(results.get("depth"));
    const [rep] = depth.repetitions as Json[];
    const r = obj(rep);
    assert.equal((r.soloLevelTimesMs as unknown[]).length, 20);
    assert.ok((r.soloLevelTimesMs as unknown[]).every(isNumber));
    assert.equal(obj(r.stormPropagationMs).n, 3);
    assert.equal(obj(r.loadedChainMs).n, 3);
    assert.ok(isNumber(depth.celEvaluationsPerReconcile) && depth.celEvaluationsPerReconcile > 0);
    assert.equal(depth.runtimePassesFirstReconcile, 21);
  });

  it("steady: resync writes, drift and deletion samples", () => {
    const steady = obj(results.get("steady"));
    const [resync] = steady.resync as Json[];
    assert.ok(Number(obj(resync).reconciles) >= 3);
    assert.ok(isNumber(obj(resync).writesPerNoopReconcile));
    assert.equal((obj(steady.drift).samplesMs as unknown[]).length, 2);
    assert.equal((obj(steady.deletion).samplesMs as unknown[]).length, 2);
  });

  it("micro: CEL, template and compile figures", () => {
    const micro = obj(results.get("micro"));
    assert.ok(Number(obj(micro.summary).celEvaluationsPerSecond) > 0);
    assert.ok(Number(obj(micro.summary).templateRendersPerSecond) > 0);
    assert.equal(obj(micro.compile).resources, 100);
  });

  it("shows progress on stderr and a table with targets on stdout", () => {
    assert.match(stderr, /\[bench\s+[\d.]+s\] fanout r0: creating 3 instances/);
    assert.match(stdout, /--workers 4 --client-qps 100 --client-burst 150/);
    for (const figure of [
      "throughput / null baseline",
      "writes per no-op reconcile",
      "drift restore",
      "CEL evaluations / s",
    ])
      assert.ok(stdout.includes(figure), figure);
  });

  it("rejects bad options with a precise message", () => {
    assert.throws(
      () => parseArgs(["--scenario", "nope"]),
      /--scenario must be one of fanout\|depth\|steady\|micro\|delete\|kinds\|restart\|versions\|clusters\|admission\|fairness\|rollout\|all/,
    );
    assert.throws(() => parseArgs(["--kinds", "0"]), /--kinds must be an integer >= 1, got "0"/);
    assert.throws(() => parseArgs(["--instances", "0"]), /--instances must be an integer >= 1, got "0"/);
    assert.throws(() => parseArgs(["--idle-seconds", "x"]), /--idle-seconds must be an integer/);
    assert.throws(() => parseArgs(["--bogus", "1"]), /unknown option --bogus/);
    assert.deepEqual(parseArgs(["--scenario", "depth"]).scenarios, ["depth"]);
    assert.deepEqual(
      parseArgs([]).scenarios,
      ["fanout", "depth", "steady", "micro"],
      "the scale scenarios run only when named",
    );
    assert.deepEqual(parseArgs(["--scenario", "kinds", "--kinds", "20"]).scenarios, ["kinds"]);
    assert.equal(parseArgs(["--scenario", "kinds", "--kinds", "20"]).kinds, 20);
    // The controller's node flags: the image's by default, none as typed by hand, or a variant to measure.
    assert.equal(parseArgs([]).nodeFlags, undefined);
    assert.deepEqual(parseArgs(["--node-flags", "none"]).nodeFlags, []);
    assert.deepEqual(parseArgs(["--node-flags=--max-semi-space-size=1  --optimize-for-size"]).nodeFlags, [
      "--max-semi-space-size=1",
      "--optimize-for-size",
    ]);
    assert.throws(() => parseArgs(["--node-flags", "optimize"]), /--node-flags takes node options/);
  });
});

// The admission scenario runs only when named: tiny, on its own control plane.
describe("bench: npm run bench -- --scenario admission", () => {
  let out: string;
  let stdout = "";
  let result: Json = {};

  before(async () => {
    out = await mkdtemp(path.join(tmpdir(), "kro-bench-admission-"));
    ({ stdout } = await run(
      process.execPath,
      [
        path.join(ROOT, "bench/run.mjs"),
        "--scenario",
        "admission",
        "--instances",
        "3",
        "--repeat",
        "1",
        "--warmup",
        "0",
        "--out",
        out,
        // Its own deadline before ours: a wait that does not end fails with what it waited for and the controller's last lines.
        "--timeout",
        "100",
      ],
      { cwd: ROOT, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 },
    ));
    const [file, ...rest] = await readdir(out);
    assert.equal(rest.length, 0);
    result = JSON.parse(await readFile(path.join(out, String(file)), "utf8")) as Json;
  });
  after(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("creates and updates as a non-admin ServiceAccount, with and without the author policy, and prints the ratios", () => {
    assert.equal(result.scenario, "admission");
    assert.equal(result.tenant, "system:serviceaccount:bench-tenant:tenant");
    // The policy was in force for the tenant: its instance where it may not create children was refused.
    assert.match(String(result.probeRefusal), /user system:serviceaccount:bench-tenant:tenant may not create/);
    const summary = obj(result.summary);
    for (const op of ["create", "update"]) {
      const figures = obj(summary[op]);
      assert.equal(obj(figures.checked).n, 3, op);
      assert.equal(obj(figures.unchecked).n, 3, op);
      assert.ok(isNumber(figures.ratioP50) && isNumber(figures.ratioP99), op);
      // Inside the API server: with the policy, the authorizer answers for every child check too.
      const perWrite = obj(obj(summary.perWrite)[op]);
      assert.ok(
        Number(obj(perWrite.checked).authorizerAllowed) > Number(obj(perWrite.unchecked).authorizerAllowed),
        JSON.stringify(perWrite),
      );
    }
    for (const figure of ["create with / without, p50", "update with / without, p50", "policy plugin time"])
      assert.ok(stdout.includes(figure), figure);
  });
});
