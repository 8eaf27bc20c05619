import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import type { InformerManager, InformerOptions, KubeClient, KubeObject } from "../../kube/index.js";
import { ChildWatches } from "./child-watches.js";

const env = createKroCelEnvironment({ enableRuntime: true });

/** A graph with a Service child; `reads` is what its ConfigMap copies out of the Service. */
function graphReading(reads: string): CompiledGraph {
  const { graph, issues } = compileRgd(
    {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "app" },
      spec: {
        schema: { apiVersion: "v1alpha1", kind: "ProjApp", spec: {} },
        resources: [
          {
            id: "svc",
            template: { apiVersion: "v1", kind: "Service", metadata: { name: "svc" }, spec: { ports: [{ port: 80 }] } },
          },
          {
            id: "cm",
            template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { v: `\${${reads}}` } },
          },
        ],
      },
    },
    { env },
  );
  assert.ok(graph, JSON.stringify(issues));
  return graph;
}

const live: KubeObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: {
    name: "svc",
    namespace: "ns",
    uid: "u1",
    resourceVersion: "7",
    labels: { a: "b" },
    managedFields: [{ manager: "kro" }],
    creationTimestamp: "2026-01-01T00:00:00Z",
  },
  spec: { ports: [{ port: 80, protocol: "TCP" }], clusterIP: "10.0.0.1", sessionAffinity: "None", type: "ClusterIP" },
  status: { loadBalancer: {} },
};

/** Fake informers whose first list the test completes: each stores `live` through its transform. */
function harness() {
  const started: {
    options: InformerOptions;
    synced: boolean;
    released: boolean;
    sync: () => void;
    stored: KubeObject | undefined;
  }[] = [];
  const client = { list: () => Promise.resolve({ items: [] }) } as unknown as KubeClient;
  const informers = {
    acquire: (options: InformerOptions) => {
      const waiters: (() => void)[] = [];
      const entry = {
        options,
        synced: false,
        released: false,
        stored: undefined as KubeObject | undefined,
        sync: () => {
          if (options.kind === "Service") entry.stored = options.transform?.(live) ?? live;
          entry.synced = true;
          for (const w of waiters.splice(0)) w();
        },
      };
      started.push(entry);
      const informer = {
        get hasSynced() {
          return entry.synced;
        },
        addHandlers: () => () => undefined,
        waitForSync: () => (entry.synced ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
        store: { getByName: () => entry.stored, list: () => (entry.stored === undefined ? [] : [entry.stored]) },
      };
      return {
        informer,
        release: () => {
          entry.released = true;
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
  const services = () => started.filter((s) => s.options.kind === "Service");
  const cachedService = () =>
    watches.lookup(new Map()).get({ apiVersion: "v1", kind: "Service", namespace: "ns", name: "svc" }) as
      { metadata: Record<string, unknown>; spec: Record<string, unknown> } | undefined;
  /** ensure() waits for every informer it started: sync them all as they appear. */
  const ensure = async (graph: CompiledGraph) => {
    const done = watches.ensure(graph);
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const s of started) if (!s.synced && !s.released && s.options.kind !== "Service") s.sync();
    }
    return done;
  };
  return { watches, started, services, cachedService, ensure };
}

describe("ChildWatches caches children projected on what the served graphs read", () => {
  it("drops unread defaults and managedFields, keeps identity, labels, status and what the graph reads or sets", async () => {
    const h = harness();
    const graph = graphReading("svc.spec.clusterIP");
    h.watches.retain("app", graph);
    const ensured = h.ensure(graph);
    await new Promise((resolve) => setImmediate(resolve));
    h.services()[0]?.sync();
    await ensured;
    assert.deepEqual(h.cachedService(), {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc", namespace: "ns", uid: "u1", resourceVersion: "7", labels: { a: "b" } },
      spec: { ports: [{ port: 80, protocol: "TCP" }], clusterIP: "10.0.0.1" },
      status: { loadBalancer: {} },
    });
  });

  it("a graph reading a dropped field re-lists the kind; the old cache is read until the new one is in", async () => {
    const h = harness();
    const narrow = graphReading("svc.spec.clusterIP");
    h.watches.retain("app", narrow);
    const first = h.ensure(narrow);
    await new Promise((resolve) => setImmediate(resolve));
    h.services()[0]?.sync();
    await first;

    const wide = graphReading("svc.spec.sessionAffinity");
    h.watches.retain("app", wide);
    assert.equal(h.services().length, 2, "a second informer, listed afresh");
    assert.notEqual(h.services()[1]?.options.variant, h.services()[0]?.options.variant, "not shared with the first");
    assert.deepEqual(
      h.cachedService()?.spec,
      { ports: [{ port: 80, protocol: "TCP" }], clusterIP: "10.0.0.1" },
      "until the re-list is in, the old cache answers",
    );
    assert.equal(h.services()[0]?.released, false);

    let ensured = false;
    const second = h.ensure(wide).then(() => {
      ensured = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ensured, false, "a reconcile of the wider graph waits for the re-list");
    h.services()[1]?.sync();
    await second;
    assert.equal(h.cachedService()?.spec.sessionAffinity, "None");
    assert.equal(h.services()[0]?.released, true, "the narrower informer is released");

    // A graph reading less (only what the controller keeps anyway): no re-list; objects arriving
    // from now on are projected narrower.
    h.watches.retain("app", graphReading("svc.metadata.name"));
    assert.equal(h.services().length, 2);
    const transform = h.services()[1]?.options.transform;
    assert.equal((transform?.(live) as { spec: Record<string, unknown> }).spec.sessionAffinity, undefined);
  });

  it("a reconcile still running an older graph widens the cache for itself (ensure checks its own graph)", async () => {
    const h = harness();
    const narrow = graphReading("svc.spec.clusterIP");
    h.watches.retain("app", narrow);
    const first = h.ensure(narrow);
    await new Promise((resolve) => setImmediate(resolve));
    h.services()[0]?.sync();
    await first;
    const other = graphReading("svc.spec.type");
    const done = h.ensure(other);
    await new Promise((resolve) => setImmediate(resolve));
    h.services()[1]?.sync();
    await done;
    assert.equal(h.cachedService()?.spec.type, "ClusterIP");
    assert.equal(h.cachedService()?.spec.clusterIP, "10.0.0.1", "the wider mask keeps what the served graph reads");
  });
});
