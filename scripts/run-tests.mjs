#!/usr/bin/env node
// The test runner behind `npm test` (after `npm run build`):
//  - finds the compiled test files itself (Node 20's `node --test dir/` silently runs none);
//  - starts ONE local control plane (full mode) shared by every integration test, and passes it
//    to the test processes through KRO_TEST_* variables;
//  - fails when no test ran; keeps the control plane's logs and prints their path on failure;
//  - bounds each test file's run (--test-timeout), so a hung test fails the run instead of
//    holding it until CI kills it;
//  - ends with the time of each phase and the 20 slowest tests, so a slow run says where it went;
//  - stops the control plane on exit, on Ctrl-C and on SIGTERM.
// Usage: node scripts/run-tests.mjs [--unit] [file filter substrings...]
// KRO_TEST_TIMEOUT_MS overrides the bound (default: 30 min with integration tests, 10 min without).
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const runStarted = Date.now();
const args = process.argv.slice(2);
const unitOnly = args.includes("--unit");
const filters = args.filter((a) => !a.startsWith("--"));

async function findTests(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await findTests(full)));
    else if (entry.name.endsWith(".test.js")) found.push(full);
  }
  return found.sort();
}

const matches = (file) => filters.length === 0 || filters.some((f) => file.includes(f));
const unitTests = (await findTests(path.join(root, "dist/src"))).filter(matches);
const clusterTests = unitOnly ? [] : (await findTests(path.join(root, "dist/test"))).filter(matches);
const files = [...unitTests, ...clusterTests];
if (files.length === 0) {
  console.error("run-tests: no test files found (did `npm run build` run?)");
  process.exit(1);
}

// Node 20 applies --test-timeout to a whole test file, not to each test (newer Node versions apply
// it to each test), so the bound must hold the longest file: the ownership fault suite allows itself
// 20 min (controller-faults.test.ts) and tenancy 15 min; the unit files' own limits are ≤ 60 s.
const DEFAULT_TIMEOUT_MS = clusterTests.length > 0 ? 30 * 60_000 : 10 * 60_000;
const timeoutSetting = process.env.KRO_TEST_TIMEOUT_MS;
const testTimeoutMs =
  timeoutSetting === undefined || timeoutSetting === "" ? DEFAULT_TIMEOUT_MS : Number(timeoutSetting);
if (!Number.isSafeInteger(testTimeoutMs) || testTimeoutMs <= 0) {
  console.error(
    `run-tests: KRO_TEST_TIMEOUT_MS must be a positive whole number of milliseconds, not ${JSON.stringify(timeoutSetting)}`,
  );
  process.exit(1);
}
/** Wall-clock time of each phase, printed at the end. */
const phases = [];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

let cluster;
let stopping;
/** The `node --test` child: stopped with us, so a cancelled run leaves no test process behind. */
let testProcess;
const stopCluster = (keepLogsIn) => {
  stopping ??= cluster === undefined ? Promise.resolve() : cluster.stop(keepLogsIn === undefined ? {} : { keepLogsIn });
  return stopping;
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    console.error(`\nrun-tests: ${signal}, stopping the tests and the control plane`);
    testProcess?.kill(signal);
    void stopCluster().finally(() => process.exit(130));
  });
}

const env = { ...process.env };
if (clusterTests.length > 0) {
  const { startLocalCluster } = await import(path.join(root, "dist/src/localcluster/index.js"));
  const started = Date.now();
  console.log(
    `run-tests: starting the shared local control plane (full mode, Kubernetes ${env.KRO_TEST_KUBE_VERSION ?? "default"})`,
  );
  cluster = await startLocalCluster({
    mode: "full",
    env: process.env,
    ...(env.KRO_TEST_KUBE_VERSION ? { kubeVersion: env.KRO_TEST_KUBE_VERSION } : {}),
    onProgress: (message) => console.log(`run-tests: ${message} (${Math.round((Date.now() - started) / 1000)}s)`),
  });
  console.log(`run-tests: control plane ready at ${cluster.server} in ${Math.round((Date.now() - started) / 1000)}s`);
  phases.push(["control-plane start", Date.now() - started]);
  Object.assign(env, {
    KRO_TEST_KUBECONFIG: cluster.kubeconfigPath,
    KRO_TEST_SERVER: cluster.server,
    KRO_TEST_TOKEN: cluster.token,
    KRO_TEST_KUBERNETES_VERSION: cluster.kubernetesVersion,
    KRO_TEST_CLUSTER_MODE: cluster.mode,
    KRO_TEST_ETCD_ENDPOINT: cluster.etcdEndpoint,
  });
}

const tapDir = await mkdtemp(path.join(tmpdir(), "kro-test-report-"));
const tapFile = path.join(tapDir, "report.tap");
const timingsFile = path.join(tapDir, "timings.jsonl");
const testsStarted = Date.now();
const code = await new Promise((resolve) => {
  const child = spawn(
    process.execPath,
    [
      "--enable-source-maps",
      "--test",
      `--test-concurrency=${env.KRO_TEST_CONCURRENCY ?? "4"}`,
      `--test-timeout=${testTimeoutMs}`,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=tap",
      `--test-reporter-destination=${tapFile}`,
      `--test-reporter=${path.join(root, "scripts/test-timings-reporter.mjs")}`,
      `--test-reporter-destination=${timingsFile}`,
      ...files,
    ],
    { stdio: "inherit", env },
  );
  testProcess = child;
  child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
});
phases.push([clusterTests.length > 0 ? "unit and integration tests" : "unit tests", Date.now() - testsStarted]);

const tap = await readFile(tapFile, "utf8").catch(() => "");
const timings = (await readFile(timingsFile, "utf8").catch(() => ""))
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line));
await rm(tapDir, { recursive: true, force: true });
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
const [tests, passed, failed, cancelled, skipped, todo] = ["tests", "pass", "fail", "cancelled", "skipped", "todo"].map(
  count,
);

// A file that ran past --test-timeout is counted as cancelled, not failed.
let failedRun = code !== 0 || failed > 0 || cancelled > 0;
if (tests === 0) {
  console.error("run-tests: the test runner ran zero tests: failing the run");
  failedRun = true;
}
if (skipped > 0 || todo > 0) {
  console.error(`run-tests: ${skipped} skipped and ${todo} todo tests: a skipped test is a defect, failing the run`);
  failedRun = true;
}
if (failedRun && cluster !== undefined) {
  const logDir = path.join(root, ".kro-test-logs", new Date().toISOString().replaceAll(":", "-"));
  await stopCluster(logDir);
  console.error(`run-tests: control-plane logs kept in ${logDir}`);
} else {
  await stopCluster();
}

// Tests, not the suites that hold them: a suite's time is its tests' time again.
const slowest = timings
  .filter((t) => !t.suite)
  .sort((a, b) => b.durationMs - a.durationMs)
  .slice(0, 20);
if (slowest.length > 0) {
  console.log(`run-tests: the ${slowest.length} slowest tests`);
  for (const t of slowest) {
    const name = t.name.replace(/\s+/g, " ");
    const shown = name.length > 160 ? `${name.slice(0, 159)}…` : name;
    console.log(
      `  ${seconds(t.durationMs).padStart(9)}  ${path.relative(root, t.file ?? "?")}: ${shown}${t.failed ? " (failed)" : ""}`,
    );
  }
}
// The longest file against the bound, which on Node 20 is per file (a file's tests run in order).
const perFile = new Map();
for (const t of timings.filter((t) => t.nesting === 0)) perFile.set(t.file, (perFile.get(t.file) ?? 0) + t.durationMs);
const [longestFile, longestMs] = [...perFile].sort((a, b) => b[1] - a[1])[0] ?? [];
if (longestFile !== undefined) {
  console.log(
    `run-tests: longest file ${path.relative(root, longestFile ?? "?")}: ${seconds(longestMs)} (bound per file: ${seconds(testTimeoutMs)}, KRO_TEST_TIMEOUT_MS)`,
  );
}
phases.push(["total", Date.now() - runStarted]);
console.log(`run-tests: phase times: ${phases.map(([name, ms]) => `${name} ${seconds(ms)}`).join(", ")}`);
console.log(`${passed} passed, ${failed} failed${cancelled > 0 ? `, ${cancelled} cancelled (timed out)` : ""}`);
process.exit(failedRun ? 1 : 0);
