// Children in two clusters (docs/design/clusters.md): N instances of an RGD whose four
// ConfigMaps alternate hub → member → hub → member (each reading the one before), against the
// same RGD with all four in the hub, in the same run and the same controller (the ratio of the
// two convergence times). A second minimal control plane is the member, registered by a
// kubeconfig Secret; requests are counted per instance and per cluster from each API server's
// apiserver_request_total. Per repetition: one-cluster N, then two-cluster N, each deleted by the
// controller afterwards (the deletion time is reported too).
import path from "node:path";
import { attributable, byVerb, diffTotals, scrapeRequestTotals } from "../lib/apiserver-metrics.mjs";
import { log, waitUntil } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import {
  createInstances,
  deleteInstances,
  ensureNamespaces,
  installRgd,
  waitGone,
  waitReady,
} from "../lib/workload.mjs";

const CHILDREN = 4;
const REGISTRATIONS = "bench-clusters";
const MEMBER = "member";
const SHAPES = {
  one: { kind: "BenchSingle", plural: "benchsingles", remote: [] },
  two: { kind: "BenchSplit", plural: "benchsplits", remote: ["second", "fourth"] },
};

function rgd(shape) {
  const { kind, remote } = SHAPES[shape];
  const cm = (id, data) => ({
    id,
    ...(remote.includes(id) ? { cluster: MEMBER } : {}),
    template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `\${schema.metadata.name}-${id}` }, data },
  });
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: `bench-${shape}` },
    spec: {
      schema: { apiVersion: "v1alpha1", kind, spec: { v: "string | default=x" } },
      resources: [
        cm("first", { v: "${schema.spec.v}" }),
        cm("second", { v: "${first.data.v}" }),
        cm("third", { v: "${second.data.v}" }),
        cm("fourth", { v: "${third.data.v}" }),
      ],
    },
  };
}

const kubeconfigOf = (member) => `apiVersion: v1
kind: Config
clusters: [{ name: ${MEMBER}, cluster: { server: "${member.server}", certificate-authority-data: ${Buffer.from(member.caData).toString("base64")} } }]
users: [{ name: kro, user: { token: "${member.token}" } }]
contexts: [{ name: ${MEMBER}, context: { cluster: ${MEMBER}, user: kro } }]
current-context: ${MEMBER}
`;

export async function runClusters(bench) {
  const { args, harness, cluster, root } = bench;
  const instances = args.instances ?? 200;
  const timeoutMs = args.timeout * 1000;
  const { startLocalCluster } = await import(path.join(root, "dist/src/localcluster/index.js"));
  const { createKubeClient } = await import(path.join(root, "dist/src/kube/index.js"));
  log(
    `clusters: ${instances} instances × ${CHILDREN} children, all in the hub vs half in a member cluster; starting the member`,
  );
  const member = await startLocalCluster({
    mode: "minimal",
    env: process.env,
    onProgress: (m) => log(`  member: ${m}`),
  });
  const memberClient = await createKubeClient({ kubeconfig: member.kubeconfigPath, qps: 0 });
  const trackers = {};
  const repetitions = [];
  try {
    await ensureNamespaces(harness, [REGISTRATIONS]);
    await harness.apply(
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: `${MEMBER}-kubeconfig`,
          namespace: REGISTRATIONS,
          labels: { "kro.run/cluster-name": MEMBER },
        },
        data: { value: Buffer.from(kubeconfigOf(member)).toString("base64") },
      },
      { fieldManager: "kro-bench", force: true },
    );
    await bench.controller?.stop();
    await bench.startController(["--cluster-namespace", REGISTRATIONS]);
    for (const shape of Object.keys(SHAPES)) {
      await installRgd(harness, rgd(shape), timeoutMs);
      const { kind } = SHAPES[shape];
      await waitUntil(
        `${kind} to be served`,
        async () => {
          try {
            await harness.list("kro.run/v1alpha1", kind, { limit: 1 });
            return true;
          } catch {
            return undefined;
          }
        },
        { timeoutMs, intervalMs: 200 },
      );
      trackers[shape] = await new InstanceTracker(harness, "kro.run/v1alpha1", kind).start();
    }
    for (let rep = -args.warmup; rep < args.repeat; rep++) {
      const warm = rep < 0;
      const size = warm ? Math.min(20, instances) : instances;
      const tag = warm ? `w${-rep}` : `r${rep}`;
      const figures = {};
      for (const shape of Object.keys(SHAPES)) {
        const namespace = `clusters-${shape}-${tag}`;
        await ensureNamespaces(harness, [namespace]);
        await ensureNamespaces(memberClient, [namespace]);
        const { kind, plural } = SHAPES[shape];
        const objects = Array.from({ length: size }, (_, i) => ({
          apiVersion: "kro.run/v1alpha1",
          kind,
          metadata: { name: `i-${i}`, namespace },
          spec: { v: `v${i}` },
        }));
        log(
          `clusters ${tag}: ${size} instances, ${shape === "one" ? "all children in the hub" : "children in the hub and the member"}`,
        );
        const before = { hub: await scrapeRequestTotals(cluster), member: await scrapeRequestTotals(member) };
        const started = Date.now();
        await createInstances(harness, trackers[shape], objects);
        await waitReady(trackers[shape], objects, timeoutMs);
        const convergeMs = Date.now() - started;
        const after = { hub: await scrapeRequestTotals(cluster), member: await scrapeRequestTotals(member) };
        const hub = attributable(diffTotals(before.hub, after.hub), {
          resources: ["configmaps"],
          instanceResource: plural,
          harness: { [`POST ${plural}`]: size },
        });
        const remote = attributable(diffTotals(before.member, after.member), {
          resources: ["configmaps"],
          instanceResource: plural,
        });
        const deleteStarted = Date.now();
        await deleteInstances(harness, objects);
        await waitGone(trackers[shape], objects, timeoutMs);
        const deleteMs = Date.now() - deleteStarted;
        const left =
          (await memberClient.list("v1", "ConfigMap", { namespace, labelSelector: "app.kubernetes.io/managed-by=kro" }))
            .items.length +
          (await harness.list("v1", "ConfigMap", { namespace, labelSelector: "app.kubernetes.io/managed-by=kro" }))
            .items.length;
        log(
          `clusters ${tag} ${shape}: all Ready in ${(convergeMs / 1000).toFixed(1)} s, deleted in ${(deleteMs / 1000).toFixed(1)} s, ${left} children left`,
        );
        figures[shape] = {
          convergeMs,
          deleteMs,
          childrenLeft: left,
          hubPerInstance: byVerb(hub, size),
          memberPerInstance: byVerb(remote, size),
        };
      }
      if (warm) continue;
      repetitions.push({
        instances: size,
        ...figures,
        ratio: round(figures.two.convergeMs / figures.one.convergeMs),
        deleteRatio: round(figures.two.deleteMs / figures.one.deleteMs),
      });
    }
  } finally {
    for (const tracker of Object.values(trackers)) await tracker.stop();
    memberClient.close();
    await member.stop();
  }
  const med = (f) => summarize(repetitions.map(f));
  return {
    scenario: "clusters",
    instances,
    childrenPerInstance: CHILDREN,
    summary: {
      oneClusterMs: med((r) => r.one.convergeMs),
      twoClustersMs: med((r) => r.two.convergeMs),
      ratio: med((r) => r.ratio),
      oneClusterDeleteMs: med((r) => r.one.deleteMs),
      twoClustersDeleteMs: med((r) => r.two.deleteMs),
      deleteRatio: med((r) => r.deleteRatio),
      childrenLeft: med((r) => r.one.childrenLeft + r.two.childrenLeft),
    },
    repetitions,
  };
}
