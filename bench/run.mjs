#!/usr/bin/env node
// `npm run bench`: starts its own local control plane, runs the controller as a subprocess,
// runs the chosen scenarios (each with its null baseline where it has one), prints a table and
// writes raw JSON under bench-results/. Everything it starts is stopped on exit or Ctrl-C.
import path from "node:path";
import { readFile } from "node:fs/promises";
import { BenchArgsError, parseArgs } from "./lib/args.mjs";
import { startControllerProcess } from "./lib/controller-process.mjs";
import { log } from "./lib/progress.mjs";
import { environment, rows, table, writeResult } from "./lib/report.mjs";
import { setupBench } from "./lib/setup.mjs";
import { runDepth } from "./scenarios/depth.mjs";
import { runFanout } from "./scenarios/fanout.mjs";
import { runMicro } from "./scenarios/micro.mjs";
import { runSteady } from "./scenarios/steady.mjs";
import { runDelete } from "./scenarios/delete.mjs";
import { runKinds } from "./scenarios/kinds.mjs";
import { runRestart } from "./scenarios/restart.mjs";
import { runReplicas } from "./scenarios/replicas.mjs";
import { runVersions } from "./scenarios/versions.mjs";
import { runClusters } from "./scenarios/clusters.mjs";
import { runAdmission } from "./scenarios/admission.mjs";
import { runFairness } from "./scenarios/fairness.mjs";
import { runRollout } from "./scenarios/rollout.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof BenchArgsError)) throw error;
  console.error(error.message);
  process.exit(2);
}
const startedAt = new Date();
const pkg = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"));
const RUNNERS = {
  fanout: runFanout,
  depth: runDepth,
  steady: runSteady,
  delete: runDelete,
  kinds: runKinds,
  restart: runRestart,
  versions: runVersions,
  clusters: runClusters,
  admission: runAdmission,
  fairness: runFairness,
  rollout: runRollout,
};
const results = [];
let bench;
let cleaning;
const cleanup = () =>
  (cleaning ??= (async () => {
    await bench?.controller?.stop().catch(() => undefined);
    await bench?.stop().catch((e) => log(`cleanup: ${e.message}`));
  })());
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  let versions = { kro: pkg.version };
  if (args.replicas !== undefined) {
    // Sharded replicas: in this process, or one subprocess each (--replica-processes), started by scenarios/replicas.mjs.
    bench = await setupBench(root, args);
    await runReplicas({ ...bench, root });
  } else if (args.scenarios.some((s) => s !== "micro")) {
    bench = await setupBench(root, args);
    versions = { ...versions, kubernetes: bench.cluster.kubernetesVersion };
    bench.startController = async (extraArgs = []) => {
      const c = await startControllerProcess({
        extraArgs,
        nodeFlags: args.nodeFlags,
        root,
        kubeconfig: bench.controllerKubeconfig,
        workers: args.workers,
        maxWorkers: args.maxWorkers,
        qps: args.qps,
        burst: args.burst,
        logFile: path.join(bench.workDir, "controller.log"),
        ...(args.cpuProf === undefined ? {} : { cpuProfDir: path.resolve(args.cpuProf) }),
      });
      bench.controller = c;
      return c;
    };
    const c = await bench.startController();
    log(
      `controller pid ${c.pid} ready in ${c.readyAfterMs} ms (workers ${args.workers}, max ${args.maxWorkers ?? "default"}, QPS ${args.qps}, burst ${args.burst}; log ${path.join(bench.workDir, "controller.log")})`,
    );
  }
  const env = environment(bench ?? { args }, versions);
  for (const scenario of args.replicas === undefined ? args.scenarios : []) {
    const result = scenario === "micro" ? await runMicro(root, args) : await RUNNERS[scenario](bench, bench.controller);
    const file = await writeResult(path.resolve(root, args.out), result, env, startedAt);
    log(`${scenario}: raw results in ${path.relative(process.cwd(), file) || file}`);
    results.push(result);
  }
  if (args.replicas === undefined)
    console.log(
      `\nkro-ts ${pkg.version} on ${env.cores} cores (${env.cpuModel}), Node ${env.node}${env.kubernetes ? `, Kubernetes ${env.kubernetes} (${env.clusterMode} control plane)` : ""}`,
    );
  if (args.replicas === undefined)
    console.log(
      `controller: --workers ${args.workers}${args.maxWorkers === undefined ? "" : ` --max-workers ${args.maxWorkers}`} --client-qps ${args.qps} --client-burst ${args.burst}${args.latencyMs > 0 ? `; API server latency +${args.latencyMs} ms` : ""}; null baseline: same client settings, ${args.baselineConcurrency} in flight; repetitions: ${args.repeat} after ${args.warmup} warm-up\n`,
    );
  if (args.replicas === undefined) console.log(table(results.flatMap(rows)));
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  if (bench !== undefined) {
    const controllerLog = path.join(bench.workDir, "controller.log");
    // Its last lines, so a failure seen only in CI's output (the work dir is gone) says what the controller was doing.
    const tail = await readFile(controllerLog, "utf8").then(
      (text) =>
        text
          .trimEnd()
          .split("\n")
          .slice(-30)
          .map((line) => line.slice(0, 600))
          .join("\n"),
      () => "(none written)",
    );
    console.error(`controller log: ${controllerLog}; its last lines:\n${tail}`);
  }
  process.exitCode = 1;
} finally {
  await cleanup();
}
