// Command-line options of `npm run bench`: parsed once, validated with a precise message, frozen.
export const SCENARIOS = ["fanout", "depth", "steady", "micro"];
/** Scale scenarios: run only when named, never by "all". */
export const SCALE_SCENARIOS = [
  "delete",
  "kinds",
  "restart",
  "versions",
  "clusters",
  "admission",
  "fairness",
  "rollout",
];

const DEFAULTS = {
  scenario: "all",
  instances: undefined, // per scenario: fanout 1000, depth 100, steady 1000, clusters 200, admission 100 per phase, fairness 20 expensive, rollout 1000 per variant
  repeat: 3,
  warmup: 1,
  workers: 4,
  maxWorkers: undefined, // the controller's --max-workers (default: its own, 32); equal to --workers: a fixed number, as before
  baselineConcurrency: undefined, // instances the null baseline keeps in flight (default: the controller's most, --max-workers)
  latencyMs: 0, // added to every round trip of the controller and the null baseline (a loopback proxy in front of the API server)
  qps: 100,
  burst: 150,
  cluster: "minimal",
  out: "bench-results",
  drifts: 20,
  deletions: 20,
  timeout: 1800,
  idleSeconds: 30,
  bulkDelete: false,
  skipBaseline: false, // fanout: memory-only runs (the null baseline is half the time of a 10,000 run)
  kinds: undefined, // kinds scenario: RGDs (default 300)
  downtimeSeconds: 10, // restart scenario: how long kube-apiserver stays down (long enough for backoffs to grow)
  busy: 50, // restart scenario: instances created just before the "busy" API-server restart
  phases: "api,failover,split", // restart scenario: which of its measurements to run
  replicas: undefined, // e.g. "1,2,4": fan-out converged by that many sharded replicas (scenarios/replicas.mjs)
  replicaProcesses: false, // with --replicas: each replica its own `kro controller --shards` process (RSS per replica)
  nodeFlags: undefined, // the controller subprocess's node flags, space-separated; "none" = `node dist/…` typed by hand; default: the image's
};

export class BenchArgsError extends Error {
  name = "BenchArgsError";
}

const USAGE = `usage: npm run bench -- [--scenario fanout|depth|steady|micro|delete|kinds|restart|versions|clusters|admission|fairness|rollout|all] [--instances N] [--repeat N]
  [--warmup N] [--workers N] [--max-workers N] [--baseline-concurrency N] [--latency-ms MS] [--qps N] [--burst N] [--cluster minimal|full] [--out DIR]
  [--drifts N] [--deletions N] [--idle-seconds N] [--bulk-delete] [--skip-baseline] [--timeout SECONDS] [--cpu-prof DIR]
  [--kinds K] (kinds scenario: K RGDs, --instances per RGD)
  [--downtime-seconds S] [--busy N] [--phases api,failover,split] (restart scenario)
  [--replicas 1,2,4 (with --scenario fanout: sharded replicas, same QPS each)] [--replica-processes (one process each: RSS per replica)]
  [--node-flags "FLAGS"|none (the controller's node flags instead of the image's; none: as typed by hand)]`;

/** @param {string[]} argv */
export function parseArgs(argv) {
  const options = { ...DEFAULTS, cpuProf: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") throw new BenchArgsError(USAGE);
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg ?? "");
    if (match === null) throw new BenchArgsError(`unexpected argument "${arg}"\n${USAGE}`);
    const name = match[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (name === "bulkDelete" || name === "skipBaseline" || name === "replicaProcesses") {
      options[name] = match[2] === undefined || match[2] === "true";
      continue;
    }
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new BenchArgsError(`--${match[1]} needs a value`);
    if (!(name in options)) throw new BenchArgsError(`unknown option --${match[1]}\n${USAGE}`);
    options[name] = value;
  }
  if (
    options.scenario !== "all" &&
    !SCENARIOS.includes(options.scenario) &&
    !SCALE_SCENARIOS.includes(options.scenario)
  ) {
    throw new BenchArgsError(
      `--scenario must be one of ${[...SCENARIOS, ...SCALE_SCENARIOS, "all"].join("|")}, got "${options.scenario}"`,
    );
  }
  if (options.cluster !== "minimal" && options.cluster !== "full")
    throw new BenchArgsError(`--cluster must be minimal or full, got "${options.cluster}"`);
  for (const [name, min] of [
    ["instances", 1],
    ["kinds", 1],
    ["repeat", 1],
    ["warmup", 0],
    ["workers", 1],
    ["maxWorkers", 1],
    ["baselineConcurrency", 1],
    ["latencyMs", 0],
    ["qps", 0],
    ["burst", 1],
    ["drifts", 1],
    ["deletions", 1],
    ["idleSeconds", 1],
    ["timeout", 1],
    ["downtimeSeconds", 0],
    ["busy", 0],
  ]) {
    if (options[name] === undefined) continue;
    const n = Number(options[name]);
    if (!Number.isInteger(n) || n < min)
      throw new BenchArgsError(
        `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be an integer >= ${min}, got "${options[name]}"`,
      );
    options[name] = n;
  }
  const phases = String(options.phases).split(",");
  if (phases.some((p) => !["api", "failover", "split"].includes(p)))
    throw new BenchArgsError(
      `--phases must be a comma-separated list of api, failover, split, got "${options.phases}"`,
    );
  if (options.replicas !== undefined) {
    const counts = String(options.replicas).split(",").map(Number);
    if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 16))
      throw new BenchArgsError(
        `--replicas must be a comma-separated list of integers from 1 to 16, got "${options.replicas}"`,
      );
    if (options.scenario !== "fanout") throw new BenchArgsError("--replicas goes with --scenario fanout");
    options.replicas = counts;
  }
  if (options.nodeFlags !== undefined) {
    const flags =
      String(options.nodeFlags) === "none"
        ? []
        : String(options.nodeFlags)
            .split(/\s+/)
            .filter((f) => f !== "");
    if (flags.some((f) => !f.startsWith("--")))
      throw new BenchArgsError(
        `--node-flags takes node options ("--max-semi-space-size=4 --optimize-for-size") or none, got "${options.nodeFlags}"`,
      );
    options.nodeFlags = flags;
  }
  if (options.maxWorkers !== undefined && options.maxWorkers < options.workers)
    throw new BenchArgsError(`--max-workers (${options.maxWorkers}) must be at least --workers (${options.workers})`);
  // The most instances the controller may have in flight (its --max-workers default): the null
  // baseline gets as many, so the ratio never flatters a controller that fills the pipe.
  const mostInFlight = options.maxWorkers ?? Math.max(32, options.workers);
  options.baselineConcurrency ??= mostInFlight;
  return Object.freeze({ ...options, scenarios: options.scenario === "all" ? SCENARIOS : [options.scenario] });
}
