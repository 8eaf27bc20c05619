// The client's requests against a node:http fake: discovery (aggregated and legacy), paths and
// query parameters of each verb, retries (429 Retry-After, 5xx, connection reset), 401 refresh,
// ApiError fields and predicates, raw JSON passing through untouched.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { eventually } from "../../test/support/eventually.js";
import { configMap, FakeApiServer, json } from "../../test/support/fake-api-server.js";
import type { KubeClient } from "./client.js";
import type { ConnectionConfig } from "./connection-config.js";
import { createKubeClient, type KubeClientOptions } from "./create-client.js";
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  TransportError,
} from "./errors.js";

let fake: FakeApiServer;
let client: KubeClient;
const retries: string[] = [];

async function makeClient(
  extra: Partial<KubeClientOptions> = {},
  connection: Partial<ConnectionConfig> = {},
): Promise<KubeClient> {
  return createKubeClient({
    connection: {
      source: "test",
      server: fake.url,
      namespace: "ns",
      insecureSkipTlsVerify: false,
      token: "t0k3n",
      ...connection,
    },
    qps: 0,
    retryBackoff: { initialMs: 10, maxMs: 50, jitter: 0 },
    metrics: { onRetry: (m) => retries.push(m.reason) },
    ...extra,
  });
}

beforeEach(async () => {
  fake = await FakeApiServer.start();
  retries.length = 0;
  client = await makeClient();
});

afterEach(async () => {
  client.close();
  await fake.close();
});

// Discovery aside, and /readyz: the shared probe a retry after a lost connection may send (ServerReachability).
const other = (): typeof fake.requests =>
  fake.requests.filter((r) => !["/api", "/apis", "/api/v1", "/readyz"].includes(r.path));
const cmRef = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "a" };

describe("kube client requests", () => {
  it("maps kinds through legacy or aggregated discovery, with scope", async () => {
    const cm = await client.resourceFor("v1", "ConfigMap");
    assert.deepEqual([cm.resource, cm.namespaced], ["configmaps", true]);
    const ns = await client.resourceFor("v1", "Namespace");
    assert.deepEqual([ns.resource, ns.namespaced, ns.subresources], ["namespaces", false, ["status"]]);
    fake.aggregated = true;
    const agg = await makeClient();
    assert.deepEqual((await agg.resourceFor("v1", "Namespace")).subresources, ["status"]);
    assert.equal(
      fake.requests.filter((r) => r.path === "/api/v1").length,
      1,
      "aggregated discovery needs no per-group request",
    );
    assert.match(fake.requests.find((r) => r.path === "/api")?.headers.accept ?? "", /as=APIGroupDiscoveryList/);
    await assert.rejects(agg.resourceFor("v1", "Nope"), { name: "DiscoveryError" });
    agg.close();
  });

  it("refreshes discovery on a kind miss (at most once per period) and after invalidate()", async () => {
    await assert.rejects(client.resourceFor("v1", "Widget"), { name: "DiscoveryError", code: "KUBE_KIND_NOT_FOUND" });
    fake.extraResources.push({ name: "widgets", kind: "Widget", namespaced: true, verbs: ["get"] });
    await assert.rejects(
      client.resourceFor("v1", "Widget"),
      { name: "DiscoveryError" },
      "a miss right after a refresh does not refetch",
    );
    const fetches = (): number => fake.requests.filter((r) => r.path === "/api/v1").length;
    assert.equal(fetches(), 1);
    const widget = await eventually(() => client.resourceFor("v1", "Widget"), { timeout: 5_000 });
    assert.equal(widget.resource, "widgets");
    assert.equal(fetches(), 2);
    fake.extraResources.push({ name: "gadgets", kind: "Gadget", namespaced: false, verbs: ["get"] });
    client.discovery.invalidate();
    assert.equal((await client.resourceFor("v1", "Gadget")).namespaced, false);
  });

  it("does not retry a POST whose connection was reset (it may have been applied)", async () => {
    fake.onOther = (_req, res) => {
      res.socket?.destroy();
    };
    await assert.rejects(client.create(configMap("a", "")), (e: unknown) => e instanceof TransportError);
    assert.equal(other().length, 1);
  });

  it("sends server-side apply with fieldManager, force, dryRun and fieldValidation, body unchanged", async () => {
    const object = { ...configMap("a", ""), "x-kubernetes-anything": { keep: true }, unknownField: [1, { b: null }] };
    fake.onOther = (req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(req.body);
    };
    const applied = await client.apply(object, {
      fieldManager: "kro",
      force: true,
      dryRun: true,
      fieldValidation: "Strict",
    });
    const req = other()[0];
    assert.ok(req);
    assert.equal(req.method, "PATCH");
    assert.equal(req.path, "/api/v1/namespaces/ns/configmaps/a");
    assert.equal(req.headers["content-type"], "application/apply-patch+yaml");
    assert.equal(req.headers.authorization, "Bearer t0k3n");
    assert.deepEqual(Object.fromEntries(req.query), {
      fieldManager: "kro",
      fieldValidation: "Strict",
      dryRun: "All",
      force: "true",
    });
    assert.deepEqual(JSON.parse(req.body), object);
    assert.deepEqual(applied, object);
    await client.applyStatus(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "n" }, status: {} },
      { fieldManager: "kro" },
    );
    assert.equal(other()[1]?.path, "/api/v1/namespaces/n/status");
  });

  it("sends merge patches, deletes with preconditions and propagation, and paginated lists", async () => {
    fake.onOther = (_req, res) => {
      json(res, 200, { kind: "Status", status: "Success" });
    };
    await client.patch(cmRef, { data: { k: null } });
    await client.delete(cmRef, {
      preconditions: { uid: "u1", resourceVersion: "9" },
      propagationPolicy: "Foreground",
      dryRun: true,
    });
    const [patch, del] = other();
    assert.ok(patch && del);
    assert.equal(patch.headers["content-type"], "application/merge-patch+json");
    assert.deepEqual(JSON.parse(patch.body), { data: { k: null } });
    assert.equal(del.method, "DELETE");
    assert.deepEqual(JSON.parse(del.body), {
      apiVersion: "v1",
      kind: "DeleteOptions",
      propagationPolicy: "Foreground",
      preconditions: { uid: "u1", resourceVersion: "9" },
      dryRun: ["All"],
    });

    fake.onList = (req, res) => {
      const page = req.query.get("continue");
      json(
        res,
        200,
        page === null
          ? { metadata: { resourceVersion: "5", continue: "p2" }, items: [{ metadata: { name: "one" } }] }
          : { metadata: { resourceVersion: "5" }, items: [{ metadata: { name: "two" } }] },
      );
    };
    const list = await client.list("v1", "ConfigMap", { labelSelector: "a=b", limit: 1 });
    assert.deepEqual(
      list.items.map((i) => [i.metadata?.name, i.kind, i.apiVersion]),
      [
        ["one", "ConfigMap", "v1"],
        ["two", "ConfigMap", "v1"],
      ],
    );
    assert.equal(list.metadata.resourceVersion, "5");
    assert.equal(fake.lists()[1]?.query.get("continue"), "p2");
    assert.equal(fake.lists()[0]?.query.get("labelSelector"), "a=b");
  });

  it("turns error answers into ApiError with status, reason, details, verb and path", async () => {
    const status = (code: number, reason: string) => ({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code,
      reason,
      message: `m${code}`,
      details: { name: "a", kind: "configmaps" },
    });
    const cases: [number, string, (e: unknown) => boolean][] = [
      [404, "NotFound", isNotFound],
      [409, "AlreadyExists", isAlreadyExists],
      [409, "Conflict", isConflict],
      [410, "Expired", isGone],
      [403, "Forbidden", isForbidden],
      [422, "Invalid", isInvalid],
    ];
    for (const [code, reason, predicate] of cases) {
      fake.onOther = (_req, res) => {
        json(res, code, status(code, reason));
      };
      const error = await client.get(cmRef).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, code);
      assert.equal(error.reason, reason);
      assert.equal(error.verb, "GET");
      assert.equal(error.path, "/api/v1/namespaces/ns/configmaps/a");
      assert.deepEqual(error.details, { name: "a", kind: "configmaps" });
      assert.equal(predicate(error), true, reason);
      for (const [, r, p] of cases)
        if (r !== reason && !(code === 409 && r === "Conflict" && reason === "AlreadyExists"))
          assert.equal(p(error), false, `${reason} is not ${r}`);
    }
  });

  it("retries 429 after Retry-After, 5xx with backoff, and a reset connection", async () => {
    fake.onOther = (_req, res, n) => {
      const mine = other().length;
      if (mine === 1) json(res, 429, { kind: "Status", code: 429, reason: "TooManyRequests" }, { "retry-after": "1" });
      else if (mine === 2) json(res, 503, { kind: "Status", code: 503 });
      else if (mine === 3) res.socket?.destroy();
      else json(res, 200, configMap("a", String(n)));
    };
    const started = Date.now();
    const got = await client.get(cmRef);
    assert.equal(got.metadata?.name, "a");
    assert.ok(Date.now() - started >= 950, "waited for Retry-After: 1");
    assert.equal(other().length, 4);
    assert.deepEqual(retries.slice(0, 2), ["HTTP 429", "HTTP 503"]);
    assert.ok(retries.length === 3);
  });

  it(
    "a retry after a lost connection wakes when the shared /readyz probe sees the server back, not after its backoff",
    { timeout: 30_000 },
    async () => {
      // A backoff no test run sits out: only the probe seeing the server back can wake the retry.
      const slow = await makeClient({ retryBackoff: { initialMs: 600_000, maxMs: 600_000, jitter: 0 } });
      let probes = 0;
      fake.onOther = (req, res, n) => {
        if (req.path === "/readyz") {
          probes++;
          if (probes <= 2) res.socket?.destroy();
          else json(res, 200, {});
          return;
        }
        if (other().length === 1) res.socket?.destroy();
        else json(res, 200, configMap("a", String(n)));
      };
      const got = await slow.get(cmRef);
      slow.close();
      assert.equal(got.metadata?.name, "a");
      assert.equal(probes, 3, "one probe loop, stopped once the server answered");
    },
  );

  it("gives up after maxRetries with the last error, and does not retry 4xx", async () => {
    const limited = await makeClient({ maxRetries: 2 });
    fake.onOther = (_req, res) => {
      json(res, 500, { kind: "Status", code: 500, reason: "InternalError" });
    };
    await assert.rejects(limited.get(cmRef), (e: unknown) => e instanceof ApiError && e.status === 500);
    assert.equal(other().length, 3);
    fake.onOther = (_req, res) => {
      json(res, 400, { kind: "Status", code: 400, reason: "BadRequest" });
    };
    await assert.rejects(limited.get(cmRef), (e: unknown) => e instanceof ApiError && e.reason === "BadRequest");
    assert.equal(other().length, 4);
    limited.close();
    const down = await makeClient({ maxRetries: 1 });
    await fake.close();
    await assert.rejects(down.get(cmRef), (e: unknown) => e instanceof TransportError);
    down.close();
    fake = await FakeApiServer.start();
  });

  it("rate-limits all requests through one token bucket", async () => {
    const limited = await makeClient({ qps: 20, burst: 2 });
    fake.onOther = (_req, res) => {
      json(res, 200, configMap("a", "1"));
    };
    await limited.resourceFor("v1", "ConfigMap");
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, () => limited.get(cmRef)));
    // Discovery used the burst; 8 more tokens at 20/s take about 400 ms.
    assert.ok(Date.now() - started >= 300, `took ${Date.now() - started} ms`);
    limited.close();
  });

  it("re-reads a token file after a 401 (rotated service-account token)", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const path = await import("node:path");
    const dir = await mkdtemp(path.join((await import("node:os")).tmpdir(), "kube-token-"));
    const tokenFile = path.join(dir, "token");
    await writeFile(tokenFile, "old\n");
    const rotating = await createKubeClient({
      connection: { source: "test", server: fake.url, namespace: "ns", insecureSkipTlsVerify: false, tokenFile },
      qps: 0,
    });
    fake.onOther = (req, res) => {
      if (req.headers.authorization === "Bearer new") json(res, 200, configMap("a", "1"));
      else json(res, 401, { kind: "Status", code: 401, reason: "Unauthorized" });
    };
    await rotating.resourceFor("v1", "ConfigMap");
    await writeFile(tokenFile, "new\n");
    const { utimes } = await import("node:fs/promises");
    await utimes(tokenFile, new Date(), new Date(Date.now() + 5000));
    assert.equal((await rotating.get(cmRef)).metadata?.name, "a");
    rotating.close();
    await rm(dir, { recursive: true, force: true });
  });
});
