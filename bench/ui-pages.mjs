#!/usr/bin/env node
// Benchmark: how fast the web view answers at 1,000 instances. Starts its own local control plane
// and the controller (a subprocess), installs an RGD with one ConfigMap per instance, creates the
// instances (every tenth stays in progress), waits until the controller has written every status,
// then serves `kro ui` (a subprocess, as a user runs it) and times its pages: over HTTP (request
// to last byte of the server-rendered page: the cluster reads and the rendering) and in headless
// Chromium (navigation to the load event: HTML, stylesheet, script and the graph picture). The
// view's own cache lives half a refresh interval; samples are spaced past it, so each one reads
// the cluster. The first sample of each page is reported apart (cold: discovery, the RGD's compile).
// Prints a table and one JSON object. Run after `npm run build`.
// Usage: node bench/ui-pages.mjs [--instances N] [--samples N]   (Chromium: $KRO_TEST_CHROMIUM or /usr/bin/chromium)
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startControllerProcess } from "./lib/controller-process.mjs";
import { log, pool, waitUntil } from "./lib/progress.mjs";
import { summarize } from "./lib/stats.mjs";
import { HARNESS_MANAGER, installRgd } from "./lib/workload.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
};
const instances = option("instances", 1000);
const samples = option("samples", 10);
const CHROMIUM = process.env.KRO_TEST_CHROMIUM ?? "/usr/bin/chromium";
const INTERVAL_MS = 200;
const NS = "ui-bench";
const KIND = "UiBench";
const RGD_NAME = "ui-bench";

const rgd = {
  apiVersion: "kro.run/v1alpha1",
  kind: "ResourceGraphDefinition",
  metadata: { name: RGD_NAME },
  spec: {
    schema: { apiVersion: "v1alpha1", kind: KIND, spec: { flag: 'string | default="on"' } },
    resources: [
      {
        id: "cm",
        readyWhen: ['${cm.data.flag == "on"}'],
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}-cm" },
          data: { flag: "${schema.spec.flag}" },
        },
      },
    ],
  },
};
const item = (i) => ({
  apiVersion: "kro.run/v1alpha1",
  kind: KIND,
  metadata: { name: `item-${String(i).padStart(4, "0")}`, namespace: NS },
  spec: { flag: i % 10 === 0 ? "off" : "on" },
});

const { startLocalCluster } = await import(path.join(root, "dist/src/localcluster/index.js"));
const { createKubeClient } = await import(path.join(root, "dist/src/kube/index.js"));
const workDir = await mkdtemp(path.join(tmpdir(), "kro-bench-ui-"));
const stops = [];
const cleanup = async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await rm(workDir, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void cleanup().finally(() => process.exit(130)));

/** `kro ui` as a user runs it; resolves with the address it serves. */
function startUi(kubeconfig) {
  const child = spawn(
    process.execPath,
    [
      path.join(root, "dist/src/cli/main.js"),
      "ui",
      "--port",
      "0",
      "--interval",
      `${INTERVAL_MS}ms`,
      "--kubeconfig",
      kubeconfig,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  stops.push(async () => {
    child.kill("SIGTERM");
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /serving (http:\/\/\S+\/)/.exec(out);
      if (match !== null) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`kro ui exited (${code}): ${out}`)));
  });
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

async function httpTimes(url) {
  const times = [];
  for (let i = 0; i < samples + 1; i++) {
    await pause(INTERVAL_MS); // past the session's cache: every sample reads the cluster
    const start = performance.now();
    const response = await fetch(url);
    const body = await response.text();
    times.push(performance.now() - start);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}: ${body.slice(0, 200)}`);
  }
  return times;
}

async function browserTimes(browser, url) {
  const page = await browser.newPage();
  const times = [];
  for (let i = 0; i < samples + 1; i++) {
    await pause(INTERVAL_MS);
    await page.goto(url, { waitUntil: "load" });
    times.push(await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd));
  }
  await page.close();
  return times;
}

const summary = (times) => ({ cold: Math.round(times[0]), ...summarize(times.slice(1)) });

try {
  log("starting a local control plane (minimal mode)");
  const cluster = await startLocalCluster({ mode: "minimal", env: process.env, onProgress: (m) => log(`  ${m}`) });
  stops.push(() => cluster.stop());
  const harness = await createKubeClient({ kubeconfig: cluster.kubeconfigPath, qps: 0 });
  stops.push(async () => harness.close());
  const controller = await startControllerProcess({
    root,
    kubeconfig: cluster.kubeconfigPath,
    workers: 16,
    qps: 200,
    burst: 400,
    logFile: path.join(workDir, "controller.log"),
  });
  stops.push(async () => process.kill(controller.pid, "SIGTERM"));
  await harness.apply(
    { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } },
    { fieldManager: HARNESS_MANAGER },
  );
  await installRgd(harness, rgd);
  log(`creating ${instances} instances`);
  await pool(
    Array.from({ length: instances }, (_, i) => item(i)),
    32,
    (o) => harness.create(o),
  );
  const written = async () =>
    (await harness.list(`kro.run/v1alpha1`, KIND, { namespace: NS })).items.filter((o) =>
      (o.status?.conditions ?? []).some((c) => c.type === "Ready" && (c.status === "True" || c.reason !== undefined)),
    ).length;
  let seen = 0;
  await waitUntil(
    "every instance's status written",
    async () => ((seen = await written()) === instances ? true : undefined),
    { timeoutMs: 900_000, intervalMs: 2000, describe: () => `${seen}/${instances}` },
  );
  const url = await startUi(cluster.kubeconfigPath);
  const pages = {
    overview: url,
    "filtered list": `${url}?namespace=${NS}&state=in-progress&q=item-09`,
    "overview, page 10": `${url}?page=10`,
    "RGD page": `${url}rgds/${RGD_NAME}`,
    "instance page": `${url}instances/${RGD_NAME}/${NS}/item-0990`,
  };
  const http = {};
  for (const [name, address] of Object.entries(pages)) http[name] = summary(await httpTimes(address));
  let browser;
  const chromium = {};
  if (existsSync(CHROMIUM)) {
    const { chromium: launcher } = await import("playwright-core");
    browser = await launcher.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    stops.push(() => browser.close());
    for (const [name, address] of Object.entries(pages)) chromium[name] = summary(await browserTimes(browser, address));
  } else log(`${CHROMIUM} is missing: browser timings skipped`);
  const result = { instances, samples, cores: os.cpus().length, node: process.version, http, chromium };
  console.log(
    "\npage                  HTTP cold  HTTP median  HTTP max   Chromium cold  Chromium median  Chromium max (ms)",
  );
  for (const name of Object.keys(pages)) {
    const h = http[name];
    const c = chromium[name] ?? {};
    console.log(
      `${name.padEnd(20)}  ${String(h.cold).padStart(9)}  ${String(Math.round(h.median)).padStart(11)}  ${String(Math.round(h.max)).padStart(8)}   ${String(c.cold ?? "-").padStart(13)}  ${String(Math.round(c.median ?? NaN)).padStart(15)}  ${String(Math.round(c.max ?? NaN)).padStart(12)}`,
    );
  }
  console.log(JSON.stringify(result));
} finally {
  await cleanup();
}
