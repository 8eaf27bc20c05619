// The bench's own control plane and clients: a fresh local cluster (minimal by default: etcd +
// kube-apiserver, so no built-in controller adds load), a harness client without a rate limit,
// and a client with the controller's QPS/burst for the null baseline. stop() removes it all.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { log } from "./progress.mjs";

/** Every write (who, what, when), nothing about reads: small enough to keep for a whole run. */
const WRITES_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    verbs: ["get", "list", "watch"]
  - level: Metadata
`;

export async function setupBench(root, args) {
  const { startLocalCluster } = await import(path.join(root, "dist/src/localcluster/index.js"));
  const { createKubeClient } = await import(path.join(root, "dist/src/kube/index.js"));
  const workDir = await mkdtemp(path.join(tmpdir(), "kro-bench-"));
  log(`starting a local control plane (${args.cluster} mode)`);
  // The restart scenario counts a deposed leader's writes from the API server's audit log.
  const audit = args.scenarios?.includes("restart") ? { auditPolicy: WRITES_AUDIT_POLICY } : {};
  const cluster = await startLocalCluster({
    mode: args.cluster,
    env: process.env,
    onProgress: (m) => log(`  ${m}`),
    ...audit,
  });
  log(`control plane ready at ${cluster.server} (Kubernetes ${cluster.kubernetesVersion})`);
  const harnessRequests = [];
  const harness = await createKubeClient({
    kubeconfig: cluster.kubeconfigPath,
    qps: 0,
    metrics: {
      onRequest: (m) => {
        harnessRequests.push(m);
      },
    },
  });
  // --latency-ms: the controller and the null baseline reach the API server through a proxy that
  // holds every round trip that long; the harness (creating instances, watching them) does not.
  let proxy;
  let kubeconfig = cluster.kubeconfigPath;
  if (args.latencyMs > 0) {
    const { TcpProxy } = await import(path.join(root, "dist/test/support/tcp-proxy.js"));
    proxy = await TcpProxy.start(cluster.server);
    proxy.setLatency(args.latencyMs);
    kubeconfig = path.join(workDir, "kubeconfig-slow");
    const text = await readFile(cluster.kubeconfigPath, "utf8");
    if (!text.includes(cluster.server)) throw new Error(`the kubeconfig does not name ${cluster.server}`);
    await writeFile(kubeconfig, text.replaceAll(cluster.server, proxy.url()));
    log(`API server latency: +${args.latencyMs} ms per round trip through ${proxy.url()}`);
  }
  // The null baseline uses exactly the controller's client settings.
  const baselineClient = await createKubeClient({
    kubeconfig,
    qps: args.qps,
    burst: args.burst,
  });
  return {
    root,
    args,
    cluster,
    harness,
    baselineClient,
    /** What the controller connects with (through the latency proxy, if any). */
    controllerKubeconfig: kubeconfig,
    workDir,
    async stop() {
      harness.close();
      baselineClient.close();
      await proxy?.close();
      await cluster.stop();
    },
  };
}
