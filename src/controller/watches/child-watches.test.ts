import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CompiledGraph } from "../../graph/index.js";
import { ApiError, type InformerManager, type KubeClient, type ListOptions } from "../../kube/index.js";
import { ChildWatches } from "./child-watches.js";

// Only what ensure() touches: list (the probe) and acquire (the informer of a listable kind).
function harness(allowed: Set<string>) {
  const lists: string[] = [];
  const listOptions: ListOptions[] = [];
  const acquired: string[] = [];
  const released: string[] = [];
  const client = {
    list: (apiVersion: string, kind: string, options: ListOptions) => {
      lists.push(kind);
      listOptions.push(options);
      if (allowed.has(kind)) return Promise.resolve({ items: [] });
      const body = JSON.stringify({
        kind: "Status",
        status: "Failure",
        reason: "Forbidden",
        code: 403,
        message: `${kind.toLowerCase()}s is forbidden`,
      });
      return Promise.reject(
        new ApiError({ status: 403, verb: "GET", path: `/api/${apiVersion}/${kind.toLowerCase()}s`, body }),
      );
    },
  } as unknown as KubeClient;
  const informers = {
    acquire: (options: { kind: string }) => {
      acquired.push(options.kind);
      return {
        informer: { hasSynced: true, addHandlers: () => () => undefined },
        release: () => {
          released.push(options.kind);
          return Promise.resolve();
        },
      };
    },
  } as unknown as InformerManager;
  const watches = new ChildWatches(
    client,
    informers,
    () => undefined,
    () => undefined,
  );
  return { watches, lists, listOptions, acquired, released };
}

const graph = {
  name: "app",
  nodes: [
    { id: "config", apiVersion: "v1", kind: "ConfigMap", type: "resource" },
    { id: "token", apiVersion: "v1", kind: "Secret", type: "resource" },
  ],
} as unknown as CompiledGraph;

describe("ChildWatches.ensure", () => {
  it("probes with a list no object can fill, so it is one request however many children exist", async () => {
    // KubeClient.list() follows every continue token: limit 1 alone would page through them all.
    const { watches, listOptions } = harness(new Set(["ConfigMap", "Secret"]));
    await watches.ensure(graph);
    assert.equal(listOptions.length, 2);
    for (const options of listOptions) {
      const name = /^metadata\.name=(.+)$/.exec(options.fieldSelector ?? "")?.[1] ?? "";
      assert.notEqual(name, "", JSON.stringify(options));
      assert.doesNotMatch(name, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "the probe name must not be a valid object name");
    }
  });

  it("watches the kinds it may list and returns the others by node id, without throwing", async () => {
    const { watches, acquired } = harness(new Set(["ConfigMap"]));
    const unwatchable = await watches.ensure(graph);
    assert.deepEqual(acquired, ["ConfigMap"]);
    assert.deepEqual([...unwatchable.keys()], ["token"]);
    assert.match(
      unwatchable.get("token") ?? "",
      /^cannot watch Secret \(v1\) for resource "token": forbidden: the controller is not allowed to list it/,
    );
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

describe("ChildWatches releases what no served graph needs", () => {
  it("stops the child-kind informers of an RGD that is no longer served", async () => {
    const { watches, acquired, released } = harness(new Set(["ConfigMap", "Secret"]));
    watches.retain("app", graph);
    await watches.ensure(graph);
    assert.deepEqual(watches.watching.managed.length, 2);
    watches.retain("app", undefined);
    assert.deepEqual(released.sort(), ["ConfigMap", "Secret"]);
    assert.deepEqual(watches.watching.managed, []);
    watches.retain("app", graph); // re-created
    await watches.ensure(graph);
    assert.deepEqual(acquired, ["ConfigMap", "Secret", "ConfigMap", "Secret"]);
  });

  it("a kind the new graph dropped is released; the others keep their informer", async () => {
    const { watches, released } = harness(new Set(["ConfigMap", "Secret"]));
    watches.retain("app", graph);
    await watches.ensure(graph);
    const smaller = { ...graph, nodes: graph.nodes.slice(0, 1) } as CompiledGraph;
    watches.retain("app", smaller);
    assert.deepEqual(released, ["Secret"]);
  });

  it("never under a running reconcile: the RGD deleted meanwhile releases after it ends", async () => {
    const { watches, released } = harness(new Set(["ConfigMap", "Secret"]));
    watches.retain("app", graph);
    watches.begin("app");
    await watches.ensure(graph);
    watches.retain("app", undefined);
    assert.deepEqual(released, [], "still in use");
    await watches.ensure(graph); // the running reconcile goes on
    watches.end("app");
    assert.deepEqual(released.sort(), ["ConfigMap", "Secret"]);
  });
});
