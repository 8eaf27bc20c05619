// A kubelet's liveness probe, as the controller's Deployment would have it: GET /healthz every
// `intervalMs` with a `timeoutMs` timeout. Counts probes, failures (timeouts and non-200s), and
// the slowest answer — what decides whether a kubelet would restart the controller.
import { get } from "node:http";

function probeOnce(url, timeoutMs) {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve({ ok: res.statusCode === 200, ms: performance.now() - started }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ ok: false, ms: performance.now() - started }));
  });
}

export function startHealthProbe(url, { intervalMs = 250, timeoutMs = 1000 } = {}) {
  const results = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const next = performance.now() + intervalMs;
      results.push(await probeOnce(url, timeoutMs));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return {
        probes: results.length,
        failed: results.filter((r) => !r.ok).length,
        slowestMs: Math.round(Math.max(0, ...results.map((r) => r.ms))),
      };
    },
  };
}
