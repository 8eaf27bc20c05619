import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS } from "../../api/index.js";
import type { KubeClient, KubeObject } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { migrateStorage } from "./storage-migration.js";

/** The controller works in v1alpha1; the storage version has moved to v1beta1. */
const target = { crdName: "webapps.kro.run", group: "kro.run", kind: "WebApp", plural: "webapps", version: "v1alpha1" };
const logger = createLogger({ level: "silent", name: "t", format: "text" });
const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: target.crdName },
  spec: { versions: [{ name: "v1alpha1" }, { name: "v1beta1", storage: true }] },
  status: { storedVersions: ["v1alpha1", "v1beta1"] },
};
const tick = () =>
  new Promise<void>((resolve) => {
    setImmediate(resolve);
  });

/** An API server holding `count` instances in pages of `pageSize`, whose updates answer after a few event-loop turns. */
function fakeServer(count: number, pageSize: number, failOn?: string) {
  const names = Array.from({ length: count }, (_, i) => `app-${String(i).padStart(3, "0")}`);
  const log: string[] = [];
  const listedAt = new Set<string>();
  let inFlight = 0;
  let maxInFlight = 0;
  const client = {
    get: () => Promise.resolve(crd),
    getPath: (path: string) => {
      const from = Number(new URL(path, "http://x").searchParams.get("continue") ?? "0");
      const items = names.slice(from, from + pageSize).map((name) => ({
        apiVersion: "kro.run/v1alpha1",
        kind: "WebApp",
        metadata: { name, namespace: "default", resourceVersion: "1" },
      }));
      log.push(`list ${from}`);
      listedAt.add(path.split("/")[3] ?? "");
      return Promise.resolve({ items, metadata: from + pageSize < count ? { continue: String(from + pageSize) } : {} });
    },
    replace: async (object: KubeObject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      for (let i = 0; i < 3; i++) await tick();
      inFlight--;
      const name = object.metadata?.name ?? "";
      if (name === failOn) throw new Error("the server was unable to return a response in the time allotted");
      log.push(`replace ${name} ${object.apiVersion}`);
      return object;
    },
    patch: (_ref: unknown, body: { metadata?: { annotations?: Record<string, string | null> }; status?: unknown }) => {
      const progress = body.metadata?.annotations?.[ANNOTATIONS.storageMigration];
      log.push(
        body.status !== undefined
          ? `storedVersions ${JSON.stringify(body.status)}`
          : `progress ${progress === null ? "cleared" : (JSON.parse(progress ?? "{}") as { continue?: string }).continue}`,
      );
      return Promise.resolve({});
    },
  } as unknown as KubeClient;
  return { client, log, listedAt, maxInFlight: () => maxInFlight };
}

describe("migrateStorage: several rewrites in flight, progress saved per finished page", () => {
  it("rewrites every object at the controller's version with up to inFlight updates at once, saving each page after its last rewrite", async () => {
    const server = fakeServer(25, 10);
    const outcome = await migrateStorage(server.client, target, { logger, qps: Infinity, inFlight: 4 });
    assert.deepEqual(outcome, { state: "done", rewritten: 25 });
    assert.equal(server.maxInFlight(), 4, "four rewrites overlapped");
    const rewrites = server.log.filter((l) => l.startsWith("replace"));
    assert.equal(new Set(rewrites).size, 25);
    // Sent at the storage version, each rewrite would be converted for every manager, policy and watcher at the controller's.
    assert.ok(
      rewrites.every((l) => l.endsWith("kro.run/v1alpha1")),
      "written at the controller's version (the API server stores it at the storage version)",
    );
    assert.deepEqual([...server.listedAt], ["v1alpha1"], "listed at the controller's version");
    // A page's progress is saved only after every one of its objects was rewritten.
    const saved = server.log.indexOf("progress 10");
    assert.ok(saved > server.log.indexOf("replace app-009 kro.run/v1alpha1") && saved < server.log.indexOf("list 10"));
    assert.deepEqual(server.log.slice(-2), ['storedVersions {"storedVersions":["v1beta1"]}', "progress cleared"]);
  });

  it("one at a time with inFlight 1", async () => {
    const server = fakeServer(12, 5);
    await migrateStorage(server.client, target, { logger, qps: Infinity, inFlight: 1 });
    assert.equal(server.maxInFlight(), 1);
  });

  it("a failed rewrite fails the migration: its page's progress is not saved, storedVersions is not trimmed, and the other rewriters stop", async () => {
    const server = fakeServer(40, 20, "app-022");
    await assert.rejects(
      migrateStorage(server.client, target, { logger, qps: Infinity, inFlight: 4 }),
      /unable to return a response/,
    );
    assert.ok(server.log.includes("progress 20"), "the first page was saved");
    assert.ok(!server.log.some((l) => l === "progress 40" || l.startsWith("storedVersions")));
    const secondPage = server.log.filter((l) => l.startsWith("replace app-02") || l.startsWith("replace app-03"));
    assert.ok(
      secondPage.length < 19,
      `the page stopped after the failure (${secondPage.length} of 19 others rewritten)`,
    );
  });
});
