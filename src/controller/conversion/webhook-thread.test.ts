// The webhook on its own thread: conversions are answered there (with APIs registered before and
// after it started), admission paths come back to their handlers here, and the server keeps
// answering while this thread is busy.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { compileRgd } from "../../graph/index.js";
import { createLogger } from "../../observability/index.js";
import { apiOfGraph, type ApiOfVersions } from "../../runtime/index.js";
import { createServingCertificate } from "./serving-certificate.js";
import { startWebhookThread } from "./webhook-thread.js";

const root = new URL("../../../../", import.meta.url);
const cert = await createServingCertificate(["127.0.0.1"]);
const logger = createLogger({ level: "silent", name: "webhook-thread-test", format: "text" });
const example = (file: string) =>
  loadYaml(file, readFileSync(new URL(`examples/versions/${file}`, root), "utf8")).documents[0]?.value;
const compiled = compileRgd(example("webapp-v1beta1.yaml")).graph;
const api = compiled === undefined ? undefined : apiOfGraph(compiled);
const beta = example("app-v1beta1.yaml") as { apiVersion: string };

function post(port: number, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        ca: cert.caPem,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const review = (desiredAPIVersion: string, objects: unknown[]) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid: "u-1", desiredAPIVersion, objects },
});

describe("the webhook on its own thread", () => {
  it("converts with the APIs it was given and those registered later; unregistered ones are refused by name", async (t) => {
    assert.ok(api);
    const apis: ApiOfVersions[] = [];
    const server = await startWebhookThread({
      host: "127.0.0.1",
      port: 0,
      cert,
      apis: () => apis,
      handlers: new Map(),
      logger,
    });
    t.after(() => server.close(0));
    const before = await post(server.port, "/convert", review("kro.run/v1alpha1", [beta]));
    assert.equal(before.status, 200);
    assert.match(JSON.stringify(before.body), /does not serve EvolvingApp\.kro\.run/);

    server.register(api);
    const after = await post(server.port, "/convert", review("kro.run/v1alpha1", [beta]));
    const converted = (after.body.response as { convertedObjects?: { apiVersion: string; spec: unknown }[] })
      .convertedObjects;
    assert.equal(converted?.[0]?.apiVersion, "kro.run/v1alpha1");
    assert.deepEqual(converted[0].spec, { image: "nginx:1.27", port: 8080, team: "payments" });

    server.unregister(api.group, api.kind);
    const gone = await post(server.port, "/convert", review("kro.run/v1alpha1", [beta]));
    assert.match(JSON.stringify(gone.body), /does not serve EvolvingApp\.kro\.run/);
  });

  it("answers conversions while this thread is blocked; admission paths are answered by their handlers here", async (t) => {
    assert.ok(api);
    const handlers = new Map<string, (body: unknown) => unknown>();
    const server = await startWebhookThread({
      host: "127.0.0.1",
      port: 0,
      cert,
      apis: () => [api],
      handlers,
      logger,
    });
    t.after(() => server.close(0));
    handlers.set("/late", (body) => ({ echoed: body, thread: "controller" }));
    server.servePaths();
    const admitted = await post(server.port, "/late", { hello: 1 });
    assert.equal(admitted.status, 200);
    assert.deepEqual(admitted.body, { echoed: { hello: 1 }, thread: "controller" });

    // This thread blocked until another thread got an answer: a webhook that needed this thread
    // would never answer, and the wait would end at its timeout instead.
    const shared = new Int32Array(new SharedArrayBuffer(8));
    const { Worker } = await import("node:worker_threads");
    const probe = new Worker(
      `const https = require("node:https"); const { workerData } = require("node:worker_threads");
       const req = https.request({ host: "127.0.0.1", port: workerData.port, path: "/convert", method: "POST", ca: workerData.ca },
         (res) => { res.resume(); res.on("end", () => { Atomics.store(workerData.shared, 1, res.statusCode); Atomics.store(workerData.shared, 0, 1); Atomics.notify(workerData.shared, 0); }); });
       req.end(workerData.body);`,
      {
        eval: true,
        workerData: {
          port: server.port,
          ca: cert.caPem,
          shared,
          body: JSON.stringify(review("kro.run/v1alpha1", [beta])),
        },
      },
    );
    const woke = Atomics.wait(shared, 0, 0, 60_000);
    await probe.terminate();
    assert.notEqual(woke, "timed-out", "the conversion was answered while this thread was blocked");
    assert.equal(shared[1], 200);
  });

  it("a thread that runs out of its heap is started again on the same port", async (t) => {
    assert.ok(api);
    const server = await startWebhookThread({
      host: "127.0.0.1",
      port: 0,
      cert,
      apis: () => [api],
      handlers: new Map(),
      logger,
      heapMb: 24,
    });
    t.after(() => server.close(0));
    const port = server.port;
    // Many objects, each small: the parsed review and its conversions outgrow 24 MiB.
    const objects = Array.from({ length: 120_000 }, (_, i) => ({ ...beta, metadata: { name: `app-${i}` } }));
    await post(port, "/convert", review("kro.run/v1alpha1", objects)).then(
      (answer) => {
        assert.notEqual(answer.status, 200, "the flood is not converted");
      },
      () => undefined,
    );
    let answered: { status: number } | undefined;
    for (let attempt = 0; attempt < 200 && answered?.status !== 200; attempt++) {
      answered = await post(port, "/convert", review("kro.run/v1alpha1", [beta])).catch(() => undefined);
      if (answered?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(answered?.status, 200, "answered again on the same port");
    assert.equal(server.port, port);
  });
});
