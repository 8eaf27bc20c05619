// The informer against a node:http fake: 410 relist (event and HTTP), jittered backoff on
// failures, the inactivity timeout, malformed lines, resume after a server close, handlers.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { eventually } from "../../test/support/eventually.js";
import { configMap, FakeApiServer, json, sendEvent } from "../../test/support/fake-api-server.js";
import type { KubeClient } from "./client.js";
import { createKubeClient } from "./create-client.js";
import { stripManagedFields, type Informer } from "./informer.js";
import type { WatchReconnectMetric } from "./types.js";

let fake: FakeApiServer;
let client: KubeClient;
let reconnects: WatchReconnectMetric[];
const informers: Informer[] = [];
const logged: string[] = [];

beforeEach(async () => {
  fake = await FakeApiServer.start();
  reconnects = [];
  logged.length = 0;
  client = await createKubeClient({
    connection: { source: "test", server: fake.url, namespace: "ns", insecureSkipTlsVerify: false },
    qps: 0,
    metrics: { onWatchReconnect: (m) => reconnects.push(m) },
    logger: { info: (_f, m) => logged.push(m), warn: (_f, m) => logged.push(m) },
  });
});

afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
  client.close();
  await fake.close();
});

function start(options: Partial<Parameters<KubeClient["informer"]>[0]> = {}): { informer: Informer; events: string[] } {
  const informer = client.informer({
    apiVersion: "v1",
    kind: "ConfigMap",
    backoff: { initialMs: 20, maxMs: 200, jitter: 0 },
    ...options,
  });
  informers.push(informer);
  const events: string[] = [];
  informer.addHandlers({
    onAdd: (o) => {
      // Handlers see the store with the change already applied.
      assert.ok(informer.store.getByName(o.metadata?.namespace, o.metadata?.name ?? "") !== undefined);
      events.push(`add ${o.metadata?.name ?? ""}`);
    },
    onUpdate: (_old, o) => events.push(`update ${o.metadata?.name ?? ""}`),
    onDelete: (o) => {
      assert.equal(informer.store.getByName(o.metadata?.namespace, o.metadata?.name ?? ""), undefined);
      events.push(`delete ${o.metadata?.name ?? ""}`);
    },
  });
  informer.start();
  return { informer, events };
}

const names = (informer: Informer): string[] =>
  informer.store
    .list()
    .map((o) => o.metadata?.name ?? "")
    .sort();

describe("informer", () => {
  it("relists on a 410 ERROR event and reconciles the store with what it missed", async () => {
    fake.onList = (_req, res, n) => {
      json(
        res,
        200,
        n === 1
          ? { metadata: { resourceVersion: "10" }, items: [configMap("a", "5"), configMap("b", "6")] }
          : { metadata: { resourceVersion: "20" }, items: [configMap("b", "6"), configMap("c", "15")] },
      );
    };
    fake.onWatch = (req, res, n) => {
      if (n === 1) {
        assert.equal(req.query.get("resourceVersion"), "10");
        assert.equal(req.query.get("allowWatchBookmarks"), "true");
        sendEvent(res, "ERROR", {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          reason: "Expired",
          code: 410,
          message: "too old resource version",
        });
      } else {
        assert.equal(req.query.get("resourceVersion"), "20");
        res.writeHead(200);
      }
    };
    const { informer, events } = start();
    await informer.waitForSync({ timeoutMs: 5_000 });
    await eventually(() => {
      assert.equal(fake.watches().length, 2);
    });
    assert.deepEqual(names(informer), ["b", "c"]);
    assert.deepEqual(events, ["add a", "add b", "add c", "delete a"]);
    assert.equal(informer.stats.lists, 2);
    assert.equal(reconnects[0]?.reason, "gone");
    assert.equal(reconnects[0].relist, true);
    assert.equal(reconnects[0].delayMs, 0, "a 410 relists at once, without backoff");
  });

  it("transforms objects before storing them: managedFields stripped from lists and events", async () => {
    const withFields = (name: string, rv: string) => {
      const cm = configMap(name, rv) as { metadata: Record<string, unknown> };
      cm.metadata.managedFields = [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:data": {} } }];
      return cm;
    };
    fake.onList = (_req, res) => {
      json(res, 200, { metadata: { resourceVersion: "3" }, items: [withFields("listed", "2")] });
    };
    fake.onWatch = (_req, res, n) => {
      if (n === 1) sendEvent(res, "ADDED", withFields("watched", "4"));
      else res.writeHead(200);
    };
    const { informer } = start({ transform: stripManagedFields });
    await eventually(() => {
      assert.deepEqual(names(informer), ["listed", "watched"]);
    });
    for (const o of informer.store.list()) {
      assert.equal(o.metadata?.managedFields, undefined);
      assert.equal(o.metadata?.resourceVersion !== undefined, true, "the rest of metadata stays");
    }
  });

  it("starts its backoff afresh after a watch that carried events", async () => {
    fake.onWatch = (_req, res, n) => {
      if (n <= 3) json(res, 500, { kind: "Status", reason: "InternalError", code: 500 });
      else if (n === 4) {
        sendEvent(res, "ADDED", configMap("one", "2"));
        setTimeout(() => {
          res.socket?.destroy();
        }, 20);
      } else if (n === 5) json(res, 500, { kind: "Status", reason: "InternalError", code: 500 });
      else res.writeHead(200);
    };
    start();
    await eventually(() => {
      assert.equal(fake.watches().length, 6);
    });
    assert.deepEqual(
      reconnects.map((r) => r.delayMs),
      [20, 40, 80, 20, 40],
    );
  });

  it("wakes from a long backoff as soon as the server answers again after an outage", async () => {
    const readyz: number[] = [];
    fake.onOther = (req, res) => {
      if (req.path !== "/readyz") {
        json(res, 404, {});
        return;
      }
      readyz.push(Date.now());
      // Down for the first two probes, then back.
      if (readyz.length <= 2) res.socket?.destroy();
      else json(res, 200, {});
    };
    fake.onWatch = (_req, res, n) => {
      if (n === 1) res.socket?.destroy();
      else res.writeHead(200);
    };
    // A backoff no test run sits out: only the probe seeing the server back can bring the watch.
    start({ backoff: { initialMs: 600_000, maxMs: 600_000, jitter: 0 } });
    await eventually(
      () => {
        assert.equal(fake.watches().length, 2);
      },
      { timeout: 30_000, interval: 20 },
    );
    assert.equal(readyz.length, 3, "one shared probe, stopped once the server was back");
    assert.equal(reconnects[0]?.delayMs, 600_000);
  });

  it("right after the server came back, retries refused watches (429 storage re-initializing) within a second, not after its grown backoff", async () => {
    let probes = 0;
    fake.onOther = (req, res) => {
      if (req.path !== "/readyz") {
        json(res, 404, {});
        return;
      }
      probes++;
      if (probes <= 2) res.socket?.destroy();
      else json(res, 200, {});
    };
    // Down, then back but refusing watches twice as kube-apiserver does while its watch cache fills.
    fake.onWatch = (_req, res, n) => {
      if (n === 1) res.socket?.destroy();
      else if (n <= 3)
        json(res, 429, {
          kind: "Status",
          reason: "TooManyRequests",
          code: 429,
          message: "storage is (re)initializing",
        });
      else res.writeHead(200);
    };
    // A backoff no test run sits out: the refused watches come back only on the recovery step.
    start({ backoff: { initialMs: 600_000, maxMs: 600_000, jitter: 0 } });
    await eventually(
      () => {
        assert.equal(fake.watches().length, 4);
      },
      { timeout: 30_000, interval: 20 },
    );
    assert.deepEqual(
      reconnects.slice(1).map((r) => r.delayMs <= 1_000),
      [true, true],
      JSON.stringify(reconnects.map((r) => r.delayMs)),
    );
  });

  it("relists when the watch request itself answers HTTP 410", async () => {
    fake.onList = (_req, res, n) => {
      json(res, 200, { metadata: { resourceVersion: String(n * 10) }, items: [configMap("x", String(n))] });
    };
    fake.onWatch = (_req, res, n) => {
      if (n === 1) json(res, 410, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Gone", code: 410 });
      else res.writeHead(200);
    };
    const { informer, events } = start();
    await eventually(() => {
      assert.equal(fake.watches().length, 2);
    });
    assert.equal(fake.watches()[1]?.query.get("resourceVersion"), "20");
    assert.equal(informer.stats.lists, 2);
    assert.deepEqual(events, ["add x", "update x"]);
  });

  it("backs off with growing delays on repeated failures and never gives up", async () => {
    fake.onWatch = (_req, res, n) => {
      if (n <= 4) json(res, 500, { kind: "Status", reason: "InternalError", code: 500, message: `boom ${n}` });
      else sendEvent(res, "ADDED", configMap("late", "7"));
    };
    const { informer } = start();
    await eventually(() => {
      assert.deepEqual(names(informer), ["late"]);
    });
    const delays = reconnects.map((r) => r.delayMs);
    assert.deepEqual(
      reconnects.map((r) => r.reason),
      ["error", "error", "error", "error"],
    );
    assert.deepEqual(delays, [20, 40, 80, 160]);
    const at = fake.watches().map((r) => r.at);
    for (let i = 1; i < at.length; i++)
      assert.ok((at[i] ?? 0) - (at[i - 1] ?? 0) >= (delays[i - 1] ?? 0) - 5, `watch ${i} came too early`);
    assert.equal(informer.stats.lists, 1, "errors other than 410 do not relist");
    assert.ok(logged.includes("watch failed, reconnecting"));
  });

  it("keeps retrying when the list itself fails (connection refused, 503) until it succeeds", async () => {
    fake.onList = (_req, res, n) => {
      if (n <= 2) res.destroy();
      else json(res, 200, { metadata: { resourceVersion: "3" }, items: [configMap("ok", "3")] });
    };
    const { informer } = start();
    await informer.waitForSync({ timeoutMs: 5_000 });
    assert.deepEqual(names(informer), ["ok"]);
  });

  it("reconnects a silent stream after the inactivity timeout, resuming from the last resourceVersion", async () => {
    fake.onWatch = (_req, res, n) => {
      if (n === 1) {
        sendEvent(res, "ADDED", configMap("a", "7"));
        sendEvent(res, "BOOKMARK", { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "9" } });
        // …then silence, with the connection still open.
      } else {
        res.writeHead(200);
      }
    };
    const { informer } = start({ inactivityTimeoutMs: 150 });
    await eventually(() => {
      assert.equal(fake.watches().length, 2);
    });
    assert.equal(fake.watches()[1]?.query.get("resourceVersion"), "9", "resumes from the bookmark");
    assert.equal(reconnects[0]?.reason, "inactive");
    assert.equal(informer.stats.lists, 1);
    assert.deepEqual(names(informer), ["a"]);
  });

  it("treats a malformed line as a broken stream: reconnects from the last good event", async () => {
    fake.onWatch = (_req, res, n) => {
      if (n === 1) {
        sendEvent(res, "ADDED", configMap("good", "4"));
        res.write("{not json\n");
        sendEvent(res, "ADDED", configMap("after-garbage", "5"));
      } else if (n === 2) {
        res.writeHead(200);
        res.write(`${JSON.stringify({ type: "SURPRISE", object: {} })}\n`);
      } else {
        sendEvent(res, "ADDED", configMap("resumed", "6"));
      }
    };
    const { informer } = start();
    await eventually(() => {
      assert.deepEqual(names(informer), ["good", "resumed"]);
    });
    assert.deepEqual(
      reconnects.slice(0, 2).map((r) => r.reason),
      ["malformed", "malformed"],
    );
    assert.equal(fake.watches()[1]?.query.get("resourceVersion"), "4");
    assert.equal(fake.watches()[2]?.query.get("resourceVersion"), "4");
    assert.equal(informer.stats.lists, 1);
  });

  it("resumes without a relist when the server closes the watch, and ignores replayed versions", async () => {
    fake.onWatch = (_req, res, n) => {
      if (n === 1) {
        sendEvent(res, "ADDED", configMap("a", "2"));
        sendEvent(res, "MODIFIED", configMap("a", "3", { k: "v" }));
        res.end();
      } else if (n === 2) {
        sendEvent(res, "MODIFIED", configMap("a", "3", { k: "v" }));
        sendEvent(res, "DELETED", configMap("a", "4"));
      }
    };
    const { informer, events } = start({ watchTimeoutSeconds: 1 });
    await eventually(() => {
      assert.deepEqual(events, ["add a", "update a", "delete a"]);
    });
    assert.equal(fake.watches()[0]?.query.get("timeoutSeconds"), "1");
    assert.equal(fake.watches()[1]?.query.get("resourceVersion"), "3");
    assert.equal(informer.stats.lists, 1);
    assert.equal(reconnects[0]?.reason, "closed");
    assert.equal(reconnects[0].relist, false);
    assert.equal(informer.store.size, 0);
  });

  it("watches metadata only with the PartialObjectMetadata Accept header (empty lists have items: null)", async () => {
    fake.onList = (_req, res) => {
      json(res, 200, {
        kind: "PartialObjectMetadataList",
        apiVersion: "meta.k8s.io/v1",
        metadata: { resourceVersion: "3" },
        items: null,
      });
    };
    const { informer } = start({ metadataOnly: true });
    await eventually(() => {
      assert.equal(fake.watches().length, 1);
    });
    await informer.waitForSync({ timeoutMs: 5_000 });
    assert.equal(informer.store.size, 0);
    assert.match(fake.lists()[0]?.headers.accept ?? "", /as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1/);
    assert.equal(fake.watches()[0]?.headers.accept, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
  });

  it("waitForSync gives up after its timeout while the informer keeps retrying", async () => {
    fake.onList = (_req, res) => {
      json(res, 503, { kind: "Status", code: 503, reason: "ServiceUnavailable" });
    };
    const { informer } = start();
    await assert.rejects(informer.waitForSync({ timeoutMs: 300 }), /not synced after 300 ms/);
    assert.equal(informer.stopped, false);
  });

  it("a throwing handler does not stop the informer", async () => {
    fake.onWatch = (_req, res) => {
      sendEvent(res, "ADDED", configMap("a", "2"));
      sendEvent(res, "ADDED", configMap("b", "3"));
    };
    const informer = client.informer({ apiVersion: "v1", kind: "ConfigMap" });
    informers.push(informer);
    informer.addHandlers({
      onAdd: () => {
        throw new Error("handler bug");
      },
    });
    informer.start();
    await eventually(() => {
      assert.deepEqual(names(informer), ["a", "b"]);
    });
    assert.ok(logged.includes("informer handler threw"));
  });

  it("the shared manager starts one informer per type and selector and stops it after the last release", async () => {
    const a = client.informers.acquire({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns" });
    const b = client.informers.acquire({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns" });
    const c = client.informers.acquire({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", labelSelector: "x=y" });
    assert.equal(a.informer, b.informer);
    assert.notEqual(a.informer, c.informer);
    assert.equal(client.informers.size, 2);
    await a.release();
    await a.release();
    assert.equal(a.informer.stopped, false, "b still uses it");
    await b.release();
    assert.equal(a.informer.stopped, true);
    await c.release();
    assert.equal(client.informers.size, 0);
  });
});
