#!/usr/bin/env node
// The test runner behind `npm test` (after `npm run build`):
//  - finds the compiled test files itself (Node 20's `node --test dir/` silently runs none);
//  - starts ONE local control plane (full mode) shared by every integration test, and passes it
//    to the test processes through KRO_TEST_* variables;
//  - fails when no test ran; keeps the control plane's logs and prints their path on failure;
//  - stops the control plane on exit, on Ctrl-C and on SIGTERM.
// Usage: node scripts/run-tests.mjs [--unit] [file filter substrings...]
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
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
  console.log(`run-tests: starting the shared local control plane (full mode, Kubernetes ${env.KRO_TEST_KUBE_VERSION ?? "default"})`);
  cluster = await startLocalCluster({
    mode: "full",
    env: process.env,
    ...(env.KRO_TEST_KUBE_VERSION ? { kubeVersion: env.KRO_TEST_KUBE_VERSION } : {}),
    onProgress: (message) => console.log(`run-tests: ${message} (${Math.round((Date.now() - started) / 1000)}s)`),
  });
  console.log(`run-tests: control plane ready at ${cluster.server} in ${Math.round((Date.now() - started) / 1000)}s`);
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
const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [
    "--enable-source-maps",
    "--test",
    `--test-concurrency=${env.KRO_TEST_CONCURRENCY ?? "4"}`,
    "--test-reporter=spec", "--test-reporter-destination=stdout",
    "--test-reporter=tap", `--test-reporter-destination=${tapFile}`,
    ...files,
  ], { stdio: "inherit", env });
  testProcess = child;
  child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
});

const tap = await readFile(tapFile, "utf8").catch(() => "");
await rm(tapDir, { recursive: true, force: true });
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
const [tests, passed, failed, skipped, todo] = ["tests", "pass", "fail", "skipped", "todo"].map(count);

let failedRun = code !== 0 || failed > 0;
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
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedRun ? 1 : 0);
