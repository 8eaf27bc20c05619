import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { createLogger } from "./logger.js";
import { ControllerMetrics } from "./metrics.js";
import { parseBindAddress, startProbeServer } from "./probe-server.js";

async function fetchText(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

describe("observability", () => {
  it("logs JSON lines with child bindings", () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on("data", (chunk: Buffer) => lines.push(chunk.toString()));
    const logger = createLogger({ destination: out, level: "info" });
    logger.child({ kind: "WebApp", namespace: "ns", name: "a", reconcileId: "r1" }).info({ applied: 2 }, "reconciled");
    logger.debug({}, "hidden at info level");
    const record = JSON.parse(lines.join("").trim()) as Record<string, unknown>;
    assert.deepEqual(
      { msg: record.msg, kind: record.kind, name: record.name, applied: record.applied, level: record.level },
      { msg: "reconciled", kind: "WebApp", name: "a", applied: 2, level: 30 },
    );
    assert.equal(lines.length, 1);
  });

  it("parses bind addresses", () => {
    assert.deepEqual(parseBindAddress(":8078"), { host: "0.0.0.0", port: 8078 });
    assert.deepEqual(parseBindAddress("127.0.0.1:0"), { host: "127.0.0.1", port: 0 });
    assert.equal(parseBindAddress("0"), undefined);
    assert.throws(() => parseBindAddress("8078"), /invalid bind address "8078"/);
  });

  it("serves metrics, health and readiness", async () => {
    const metrics = new ControllerMetrics({ processMetrics: false });
    metrics.reconcileTotal.inc({ kind: "WebApp", result: "success" });
    let ready = false;
    const server = await startProbeServer({ address: "127.0.0.1:0", registry: metrics.registry, ready: () => ready });
    assert.ok(server);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      assert.match(
        (await fetchText(`${base}/metrics`)).text,
        /kro_reconcile_total\{kind="WebApp",result="success"\} 1/,
      );
      assert.deepEqual(await fetchText(`${base}/healthz`), { status: 200, text: "ok" });
      assert.equal((await fetchText(`${base}/readyz`)).status, 503);
      ready = true;
      assert.equal((await fetchText(`${base}/readyz`)).status, 200);
      assert.equal((await fetchText(`${base}/nope`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it("answers /healthz 503 with the problems while something the controller needs is dead", async () => {
    let problems: string[] = [];
    const metrics = new ControllerMetrics({ processMetrics: false });
    metrics.poolWait.observe({ pool: "request" }, 0.002);
    const server = await startProbeServer({
      address: "127.0.0.1:0",
      registry: metrics.registry,
      healthy: () => ({ ok: problems.length === 0, problems }),
    });
    assert.ok(server);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      assert.equal((await fetchText(`${base}/healthz`)).status, 200);
      problems = ["instance workers: 3 of 4 running"];
      assert.deepEqual(await fetchText(`${base}/healthz`), {
        status: 503,
        text: "unhealthy:\ninstance workers: 3 of 4 running\n",
      });
      assert.match((await fetchText(`${base}/metrics`)).text, /kro_api_pool_wait_seconds_count\{pool="request"\} 1/);
    } finally {
      await server.close();
    }
  });
});
