// The controller under test, run as a subprocess of `node dist/src/cli/main.js controller` so
// /proc/<pid> measures only it. Its own /metrics gives reconcile counts (how far a resync got).
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { get } from "node:http";
import { createServer } from "node:net";
import path from "node:path";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function httpText(url) {
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: 2000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
  });
}

/**
 * @param {{ root: string, kubeconfig: string, workers: number, maxWorkers?: number, qps: number, burst: number, logFile: string, cpuProfDir?: string, extraArgs?: string[], nodeFlags?: string[] }} o
 */
/** Keep in step with the Dockerfile's ENTRYPOINT (test/tooling/dockerfile.test.ts pins that side). */
export const IMAGE_NODE_FLAGS = ["--max-semi-space-size=2"];

export async function startControllerProcess(o) {
  const [metricsPort, healthPort] = [await freePort(), await freePort()];
  // The node flags of the image's ENTRYPOINT (Dockerfile): measure the controller as it is deployed
  // (--node-flags: another entry point, e.g. none for `node dist/src/cli/main.js controller`).
  const nodeArgs = [
    ...(o.nodeFlags ?? IMAGE_NODE_FLAGS),
    ...(o.cpuProfDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${o.cpuProfDir}`]),
  ];
  const log = createWriteStream(o.logFile, { flags: "a" });
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      path.join(o.root, "dist/src/cli/main.js"),
      "controller",
      "--kubeconfig",
      o.kubeconfig,
      "--workers",
      String(o.workers),
      ...(o.maxWorkers === undefined ? [] : ["--max-workers", String(o.maxWorkers)]),
      "--client-qps",
      String(o.qps),
      "--client-burst",
      String(o.burst),
      "--metrics-bind-address",
      `127.0.0.1:${metricsPort}`,
      "--health-probe-bind-address",
      `127.0.0.1:${healthPort}`,
      "--log-level",
      "warn",
      ...(o.extraArgs ?? []),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const spawnedAt = Date.now();
  const deadline = spawnedAt + 60_000;
  for (;;) {
    const ready = await httpText(`http://127.0.0.1:${healthPort}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 100))]);
    if (code !== undefined) throw new Error(`the controller exited (${code}) before it was ready; see ${o.logFile}`);
    if (Date.now() > deadline) throw new Error(`the controller was not ready within 60 s; see ${o.logFile}`);
  }
  return {
    pid: child.pid,
    spawnedAt,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    healthUrl: `http://127.0.0.1:${healthPort}/healthz`,
    logFile: o.logFile,
    readyAfterMs: Date.now() - spawnedAt,
    /** kro_reconcile_total summed over results, by kind label ("instance", "ResourceGraphDefinition"). */
    async reconciles() {
      const { body } = await httpText(`http://127.0.0.1:${metricsPort}/metrics`);
      const counts = {};
      for (const m of body.matchAll(/^kro_reconcile_total\{([^}]*)\} (\S+)$/gm)) {
        const kind = /kind="([^"]*)"/.exec(m[1])?.[1] ?? "";
        counts[kind] = (counts[kind] ?? 0) + Number(m[2]);
      }
      return counts;
    },
    /** The instance concurrency limit now, and its windows so far by reason (overloaded, throttled, grew, steady). */
    async concurrency() {
      const { body } = await httpText(`http://127.0.0.1:${metricsPort}/metrics`);
      const steps = {};
      for (const m of body.matchAll(/^kro_instance_concurrency_steps_total\{reason="([^"]*)"\} (\S+)$/gm))
        steps[m[1]] = Number(m[2]);
      return { limit: Number(/^kro_instance_concurrency_limit (\S+)$/m.exec(body)?.[1] ?? NaN), steps };
    },
    /** V8 heap as the controller reports it (prom-client process metrics), in MB: what RSS is made of. */
    async heap() {
      const { body } = await httpText(`http://127.0.0.1:${metricsPort}/metrics`);
      const gauge = (name) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(body)?.[1] ?? NaN) / 1024 / 1024;
      return {
        heapUsedMb: gauge("kro_nodejs_heap_size_used_bytes"),
        heapTotalMb: gauge("kro_nodejs_heap_size_total_bytes"),
        externalMb: gauge("kro_nodejs_external_memory_bytes"),
      };
    },
    /** Resolves with the exit code (or signal) once the process has ended. */
    exited,
    /** SIGSTOP: frozen at an arbitrary moment (a long GC or CPU starvation, taken to the extreme). */
    pause() {
      child.kill("SIGSTOP");
    },
    /** SIGCONT: runs on from where it stopped, its timers late. */
    resume() {
      child.kill("SIGCONT");
    },
    /** SIGKILL: a crash at an arbitrary moment, no cleanup. Resolves when the process is gone. */
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await exited;
      log.end();
    },
    /** SIGTERM, then SIGKILL after 10 s. Resolves when the process is gone. */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGCONT"); // a paused process would not see SIGTERM
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
}
