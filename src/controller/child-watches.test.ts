import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CompiledGraph } from "../graph/index.js";
import { ApiError, type InformerManager, type KubeClient } from "../kube/index.js";
import { ChildWatches } from "./child-watches.js";

// Only what ensure() touches: list (the probe) and acquire (the informer of a listable kind).
function harness(allowed: Set<string>) {
  const lists: string[] = [];
  const acquired: string[] = [];
  const client = {
    list: (apiVersion: string, kind: string) => {
      lists.push(kind);
      if (allowed.has(kind)) return Promise.resolve({ items: [] });
      const body = JSON.stringify({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403, message: `${kind.toLowerCase()}s is forbidden` });
      return Promise.reject(new ApiError({ status: 403, verb: "GET", path: `/api/${apiVersion}/${kind.toLowerCase()}s`, body }));
    },
  } as unknown as KubeClient;
  const informers = {
    acquire: (options: { kind: string }) => {
      acquired.push(options.kind);
      return { informer: { hasSynced: true, addHandlers: () => undefined }, release: () => Promise.resolve() };
    },
  } as unknown as InformerManager;
  const watches = new ChildWatches(client, informers, () => undefined, () => undefined);
  return { watches, lists, acquired };
}

const graph = {
  nodes: [
    { id: "config", apiVersion: "v1", kind: "ConfigMap", type: "resource" },
    { id: "token", apiVersion: "v1", kind: "Secret", type: "resource" },
  ],
} as unknown as CompiledGraph;

describe("ChildWatches.ensure", () => {
  it("watches the kinds it may list and returns the others by node id, without throwing", async () => {
    const { watches, acquired } = harness(new Set(["ConfigMap"]));
    const unwatchable = await watches.ensure(graph);
    assert.deepEqual(acquired, ["ConfigMap"]);
    assert.deepEqual([...unwatchable.keys()], ["token"]);
    assert.match(unwatchable.get("token") ?? "", /^cannot watch Secret \(v1\) for resource "token": forbidden: the controller is not allowed to list it/);
  });

  it("reuses a refused probe for 5 s (one list per kind, not one per instance), then asks again", async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
    const allowed = new Set(["ConfigMap"]);
    const { watches, lists, acquired } = harness(allowed);
    for (let i = 0; i < 10; i++) await watches.ensure(graph);
    assert.deepEqual(lists, ["ConfigMap", "Secret"], "one probe each; the ConfigMap informer is kept");

    allowed.add("Secret"); // RBAC granted it meanwhile
    t.mock.timers.tick(4_999);
    assert.equal((await watches.ensure(graph)).size, 1, "still the remembered refusal");
    t.mock.timers.tick(1);
    assert.equal((await watches.ensure(graph)).size, 0);
    assert.deepEqual(lists, ["ConfigMap", "Secret", "Secret"]);
    assert.deepEqual(acquired, ["ConfigMap", "Secret"]);
  });
});
