#!/usr/bin/env node
// `npm run soak -- --minutes N [--instances N] [--crash-every S]`: a bounded ownership soak. On its
// own local control plane it runs the controller as a process and, for N minutes, churns
// instances (create, delete), specs (values, an includeWhen child on and off), children (deleted
// behind the controller's back, i.e. drift) and hand-made look-alikes (our owner labels copied
// onto objects we never made); with --crash-every it also kill -9s and restarts the controller.
// Then it stops churning, waits for the cluster to settle and counts: orphans, hand-made objects
// touched, instances not Ready (all three must be 0; exit 1 otherwise), with RSS over time.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { startControllerProcess } from "./lib/controller-process.mjs";
import { readProc } from "./lib/proc.mjs";
import { log } from "./lib/progress.mjs";
import { setupBench } from "./lib/setup.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`--${name} needs a positive number`);
    process.exit(2);
  }
  return value;
};
const minutes = flag("minutes", 5);
const maxInstances = flag("instances", 40);
const crashEvery = flag("crash-every", Infinity);
const { takeCensus } = await import(path.join(root, "dist/test/support/ownership-census.js"));

const apiVersion = "kro.run/v1alpha1";
const kind = "SoakApp";
const namespace = "soak";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = (items) => items[Math.floor(Math.random() * items.length)];

const bench = await setupBench(root, { cluster: "minimal", qps: 100, burst: 150 });
const { harness: client } = bench;
let controller;
const startController = async () => {
  controller = await startControllerProcess({
    root,
    kubeconfig: bench.cluster.kubeconfigPath,
    workers: 4,
    qps: 100,
    burst: 150,
    logFile: path.join(bench.workDir, "controller.log"),
  });
  return controller;
};
const cleanup = async () => {
  await controller?.stop().catch(() => undefined);
  await bench.stop().catch(() => undefined);
};
process.once("SIGINT", () => {
  void cleanup().finally(() => process.exit(130));
});

try {
  await startController();
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await client.apply(
    {
      apiVersion,
      kind: "ResourceGraphDefinition",
      metadata: { name: "soak" },
      spec: {
        schema: { apiVersion: "v1alpha1", kind, spec: { v: "string | default=x", extra: "boolean | default=false" } },
        resources: [
          {
            id: "first",
            template: {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "${schema.metadata.name}-first" },
              data: { v: "${schema.spec.v}" },
            },
          },
          {
            id: "second",
            template: {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "${schema.metadata.name}-second" },
              data: { v: "${first.data.v}" },
            },
          },
          {
            id: "extra",
            includeWhen: ["${schema.spec.extra}"],
            template: {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "${schema.metadata.name}-extra" },
              data: { v: "${second.data.v}" },
            },
          },
        ],
      },
    },
    { fieldManager: "soak", force: true },
  );
  for (;;) {
    try {
      await client.list(apiVersion, kind, { namespace, limit: 1 });
      break;
    } catch {
      await sleep(500);
    }
  }
  log(
    `soak: ${minutes} min, up to ${maxInstances} instances${Number.isFinite(crashEvery) ? `, kill -9 every ${crashEvery} s` : ""}`,
  );
  const planted = [];
  const counts = { created: 0, deleted: 0, updated: 0, drift: 0, lookalikes: 0, crashes: 0, errors: 0 };
  const rss = [];
  const started = Date.now();
  const deadline = started + minutes * 60_000;
  let next = 0;
  let lastSample = 0;
  let lastCrash = Date.now();
  while (Date.now() < deadline) {
    const live = (await client.list(apiVersion, kind, { namespace })).items
      .filter((i) => i.metadata.deletionTimestamp === undefined)
      .map((i) => i.metadata.name);
    const action =
      live.length < maxInstances / 2 ? "create" : pick(["create", "delete", "update", "update", "drift", "lookalike"]);
    try {
      if (action === "create" && live.length < maxInstances) {
        await client.create({
          apiVersion,
          kind,
          metadata: { name: `s-${next++}`, namespace },
          spec: { v: "a", extra: Math.random() < 0.5 },
        });
        counts.created++;
      } else if (action === "delete" && live.length > 0) {
        await client.delete({ apiVersion, kind, namespace, name: pick(live) });
        counts.deleted++;
      } else if (action === "update" && live.length > 0) {
        await client.patch(
          { apiVersion, kind, namespace, name: pick(live) },
          { spec: { v: Math.random().toString(36).slice(2, 8), extra: Math.random() < 0.5 } },
        );
        counts.updated++;
      } else if (action === "drift" && live.length > 0) {
        await client.delete({
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace,
          name: `${pick(live)}-${pick(["first", "second"])}`,
        });
        counts.drift++;
      } else if (action === "lookalike" && live.length > 0) {
        // An instance's owner labels copied onto an object it never made.
        const name = `lookalike-${counts.lookalikes}`;
        const data = { owner: "user", n: String(counts.lookalikes) };
        const labels = {
          "kro.run/instance-kind": kind,
          "kro.run/instance-name": pick(live),
          "kro.run/instance-namespace": namespace,
          "kro.run/instance-group": "kro.run",
          "app.kubernetes.io/managed-by": "kro",
          "kro.run/node-id": "extra",
        };
        const made = await client.create({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name, namespace, labels },
          data,
        });
        planted.push({ namespace, name, uid: made.metadata.uid, data });
        counts.lookalikes++;
      }
    } catch (error) {
      if (error.status !== 404 && error.status !== 409) {
        counts.errors++;
        log(`soak: ${action}: ${error.message}`);
      }
    }
    if (Date.now() - lastCrash > crashEvery * 1000) {
      await controller.kill();
      counts.crashes++;
      await startController();
      lastCrash = Date.now();
    }
    if (Date.now() - lastSample >= 30_000) {
      lastSample = Date.now();
      const sample = {
        atS: Math.round((Date.now() - started) / 1000),
        rssMb: Math.round(readProc(controller.pid).rssMb),
      };
      rss.push(sample);
      log(`soak: ${sample.atS} s, RSS ${sample.rssMb} MB, ${live.length} instances, ${JSON.stringify(counts)}`);
    }
    await sleep(100);
  }
  log("soak: churn stopped, waiting for the cluster to settle");
  let census;
  const settleDeadline = Date.now() + 300_000;
  for (;;) {
    census = await takeCensus(client, { apiVersion, kind, namespace, planted });
    const terminating = (await client.list(apiVersion, kind, { namespace })).items.filter(
      (i) => i.metadata.deletionTimestamp !== undefined,
    ).length;
    if (
      (census.orphans.length === 0 && census.notReady.length === 0 && terminating === 0) ||
      Date.now() > settleDeadline
    )
      break;
    await sleep(2_000);
  }
  for (const name of census.notReady.slice(0, 5)) {
    const stuck = await client.get({ apiVersion, kind, namespace, name }).catch((e) => ({ error: e.message }));
    log(
      `soak: not Ready: ${name}: ${JSON.stringify({ state: stuck.status?.state, conditions: stuck.status?.conditions?.map((c) => `${c.type}=${c.status} ${c.message}`), inventory: stuck.metadata?.annotations?.["internal.kro.run/inventory"], record: stuck.status?.kroInventory })}`,
    );
  }
  const summary = {
    minutes,
    ...counts,
    orphans: census.orphans.length,
    foreignTouched: census.foreignTouched.length,
    notReady: census.notReady.length,
    unrecorded: census.unrecorded.length,
    rss,
  };
  log(
    `soak result: ${summary.orphans} orphans, ${summary.foreignTouched} hand-made objects touched, ${summary.notReady} instances not Ready, ${summary.unrecorded} children missing from a record`,
  );
  log(`soak RSS (MB) over time: ${rss.map((s) => `${s.atS}s=${s.rssMb}`).join(" ")}`);
  await mkdir(path.join(root, "bench-results"), { recursive: true });
  await writeFile(
    path.join(root, "bench-results", `soak-${new Date().toISOString().replaceAll(":", "-")}.json`),
    JSON.stringify({ summary, census }, null, 2),
  );
  process.exitCode = summary.orphans + summary.foreignTouched + summary.notReady + summary.unrecorded === 0 ? 0 : 1;
} finally {
  await cleanup();
}
