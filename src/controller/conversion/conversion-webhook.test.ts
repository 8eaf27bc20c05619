// The conversion webhook's lifetime: once closed, nothing starts a server nobody would close.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { createLogger } from "../../observability/index.js";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { loadYaml } from "../../api/index.js";
import { compileRgd } from "../../graph/index.js";
import { apiOfGraph } from "../../runtime/index.js";
import { ConversionWebhook } from "./conversion-webhook.js";

const logger = createLogger({ level: "silent", name: "conversion-webhook-test", format: "text" });

describe("ConversionWebhook", () => {
  it("refuses to start once closed (a leadership won while the controller stops must not keep it alive)", async () => {
    const webhook = new ConversionWebhook({ logger });
    await webhook.close();
    await assert.rejects(webhook.start(), /the conversion webhook is closed/);
    await assert.rejects(webhook.clientConfig("/rgd-author"), /the conversion webhook is closed/);
  });

  it("closes a server whose start was under way when it was closed", async () => {
    const webhook = new ConversionWebhook({ logger });
    const starting = webhook.start();
    await webhook.close();
    const { server } = await starting;
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect(server.port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => {
        resolve(false);
      });
    });
    assert.equal(connected, false, "nothing listens any more");
  });

  it("serves admission paths on this thread until the first API to convert moves it to its own, on the same port", async (t) => {
    const root = new URL("../../../../", import.meta.url);
    const example = (file: string) =>
      loadYaml(file, readFileSync(new URL(`examples/versions/${file}`, root), "utf8")).documents[0]?.value;
    const graph = compileRgd(example("webapp-v1beta1.yaml")).graph;
    const api = graph === undefined ? undefined : apiOfGraph(graph);
    assert.ok(api);
    const webhook = new ConversionWebhook({ logger });
    t.after(() => webhook.close(0));
    webhook.serve("/admit", (body) => ({ seen: body }));
    const { server, cert } = await webhook.start();
    assert.equal(server.thread, undefined, "nothing to convert: no thread");
    const post = (path: string, body: unknown) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: server.port, path, method: "POST", ca: cert.caPem }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => {
            resolve({ status: res.statusCode ?? 0, text });
          });
        });
        req.on("error", reject);
        req.end(JSON.stringify(body));
      });
    assert.deepEqual(JSON.parse((await post("/admit", { a: 1 })).text), { seen: { a: 1 } });

    webhook.register(api);
    const moved = await webhook.start();
    assert.ok(moved.server.thread, "on its own thread now");
    assert.equal(moved.server.port, server.port, "the same port: every clientConfig handed out stays true");
    const review = await post("/convert", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: { uid: "u", desiredAPIVersion: "kro.run/v1alpha1", objects: [example("app-v1beta1.yaml")] },
    });
    assert.match(review.text, /"convertedObjects":\[\{"apiVersion":"kro.run\/v1alpha1"/);
    assert.deepEqual(JSON.parse((await post("/admit", { b: 2 })).text), { seen: { b: 2 } }, "admission still answered");
  });
});
