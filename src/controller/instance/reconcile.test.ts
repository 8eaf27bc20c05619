/**
 * reconcileInstance, whole passes against the in-memory fake API (test/unit-support/fake-api/):
 * the real client, informers and reconcile, with the server's answers, races and faults under
 * the test's control. Each test drives passes by hand and reads the cluster afterwards.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { ANNOTATIONS, FINALIZER, RECONCILE_SUSPENDED } from "../../api/index.js";
import type { KubeObject, ObjectRef } from "../../kube/index.js";
import type { ServedGraph } from "../context/index.js";
import { readInventory } from "./inventory.js";
import { reconcileInstance } from "./reconcile.js";
import { Actor, FakeCluster, settle } from "../../../test/unit-support/fake-api/index.js";
import {
  serveRgd,
  startFakeController,
  type FakeController,
} from "../../../test/unit-support/controller/fake-controller.js";
import { chainRgd, instance, requestedInstance, rgd, webappRgd } from "../../../test/unit-support/controller/rgds.js";

const ns = "default";
const webApp = (name: string): ObjectRef => ({ apiVersion: "kro.run/v1alpha1", kind: "WebApp", namespace: ns, name });
const chain = (name: string): ObjectRef => ({ apiVersion: "kro.run/v1alpha1", kind: "Chain", namespace: ns, name });
const deployment = (name: string): ObjectRef => ({ apiVersion: "apps/v1", kind: "Deployment", namespace: ns, name });
const service = (name: string): ObjectRef => ({ apiVersion: "v1", kind: "Service", namespace: ns, name });
const ingress = (name: string): ObjectRef => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  namespace: ns,
  name,
});
const configMap = (name: string): ObjectRef => ({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, name });

interface World {
  readonly fc: FakeController;
  readonly served: ServedGraph;
  readonly actor: Actor;
  /** One reconcile of the named instance, caches settled first unless the watches are held. */
  pass(name: string): ReturnType<typeof reconcileInstance>;
  /** The instance's record: node id → uid (and cluster, when not ours). */
  record(ref: ObjectRef): Record<string, string>;
}

async function world(
  t: TestContext,
  graph: KubeObject,
  members: readonly FakeCluster[] = [],
  controller: Parameters<typeof startFakeController>[0] = {},
): Promise<World> {
  const fc = startFakeController({ ...controller, members });
  t.after(() => fc.stop());
  const served = await serveRgd(fc, graph);
  const actor = new Actor(fc.cluster);
  return {
    fc,
    served,
    actor,
    pass: async (name) => {
      await settle();
      return reconcileInstance(fc.ctx, served, ns, name);
    },
    record: (ref) => {
      const live = actor.read(ref);
      assert.ok(live, `${ref.kind} ${ref.name} exists`);
      return Object.fromEntries(
        readInventory(live).entries.map((e) => [e.nodeId, e.cluster === undefined ? e.uid : `${e.cluster}:${e.uid}`]),
      );
    },
  };
}

/** POST over HTTPS trusting `ca`, the answer parsed. */
function postJson(url: string, ca: Buffer, body: unknown): Promise<{ response: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: "POST", ca, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("end", () => {
        resolve(JSON.parse(text) as { response: Record<string, unknown> });
      });
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const uidOf = (actor: Actor, ref: ObjectRef): string => actor.read(ref)?.metadata?.uid ?? "(none)";
const conditions = (
  object: KubeObject | undefined,
): { type: string; status: string; reason?: string; message?: string }[] =>
  (object?.status as { conditions?: { type: string; status: string; reason?: string; message?: string }[] } | undefined)
    ?.conditions ?? [];
const verbs = (fc: FakeController, kind: string): string[] =>
  fc.cluster.requests.filter((r) => r.kind === kind).map((r) => `${r.verb} ${r.name ?? ""}`);

/** Two independent branches: `slow` alone, and `a` read by `b`. */
const branches = rgd("branches", {
  schema: { apiVersion: "v1alpha1", kind: "Branches", spec: { value: 'string | default="v"' } },
  resources: ["slow", "a", "b"].map((id) => ({
    id,
    template: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `\${schema.metadata.name}-${id}` },
      data: { value: id === "b" ? "${a.data.value}-b" : "${schema.spec.value}" },
    },
  })),
});

const branchesRef: ObjectRef = { apiVersion: "kro.run/v1alpha1", kind: "Branches", namespace: ns, name: "x" };

/** Applies of the named ConfigMap the controller sent so far. */
const appliesOf = (cluster: FakeCluster, name: string): number =>
  cluster.requests.filter((r) => r.verb === "apply" && r.kind === "ConfigMap" && r.name === name).length;

/** Holds the next apply of `name` on the server until `until()` holds, or a bounded number of event-loop turns. */
function holdApply(cluster: FakeCluster, name: string, until: () => boolean): { released: () => boolean } {
  let byCondition = false;
  cluster.faults.beforeNext({ verb: "apply", kind: "ConfigMap", name }, async () => {
    for (let turn = 0; turn < 500 && !until(); turn++) await new Promise((resolve) => setImmediate(resolve));
    byCondition = until();
  });
  return { released: () => byCondition };
}

describe("reconcileInstance: pipelined applies", () => {
  it("sends a dependent once what it reads is answered, while an unrelated write is still in flight", async (t) => {
    const w = await world(t, branches);
    w.actor.create(instance("Branches", "x"));
    const slow = holdApply(w.fc.cluster, "x-slow", () => appliesOf(w.fc.cluster, "x-b") > 0);
    await w.pass("x");
    assert.ok(slow.released(), "b was sent while slow's answer was held");
    assert.deepEqual(Object.keys(w.record(branchesRef)).sort(), ["a", "b", "slow"]);
    assert.deepEqual(
      ["x-slow", "x-a", "x-b"].map((name) => appliesOf(w.fc.cluster, name)),
      [1, 1, 1],
    );
  });

  it("a failed write sends nothing more, yet every write in flight is answered and recorded", async (t) => {
    const w = await world(t, branches);
    w.actor.create(instance("Branches", "x"));
    w.fc.cluster.faults.plant(
      { verb: "apply", kind: "ConfigMap", name: "x-a" },
      { fail: { status: 500, reason: "InternalError" } },
    );
    // slow answers only after a's failure has been read.
    const slow = holdApply(w.fc.cluster, "x-slow", () => false);
    await assert.rejects(w.pass("x"), /x-a.*500 InternalError/);
    assert.equal(slow.released(), false);
    assert.equal(appliesOf(w.fc.cluster, "x-b"), 0, "b is not sent: what it reads failed");
    assert.deepEqual(Object.keys(w.record(branchesRef)), ["slow"]);
  });
});

describe("reconcileInstance: creating", () => {
  it("creates the children of an instance its informer has not seen yet, and records them", async (t) => {
    const w = await world(t, webappRgd());
    // The instance exists on the server only: the pass must read it there.
    w.fc.cluster.holdWatches();
    w.actor.create(instance("WebApp", "demo"));
    assert.deepEqual(await reconcileInstance(w.fc.ctx, w.served, ns, "demo"), {});
    assert.ok(
      w.fc.cluster.requests.some((r) => r.verb === "get" && r.kind === "WebApp" && r.name === "demo"),
      "the instance was read from the server",
    );
    assert.deepEqual(w.record(webApp("demo")), {
      deploy: uidOf(w.actor, deployment("demo")),
      svc: uidOf(w.actor, service("demo")),
    });
    const live = w.actor.read(webApp("demo"));
    assert.ok(live);
    assert.deepEqual(live.metadata?.finalizers, [FINALIZER]);
    assert.equal(
      w.actor.read(deployment("demo"))?.metadata?.annotations?.[ANNOTATIONS.creationKey],
      readInventory(live).key,
    );
  });

  it("records a child an earlier pass created but failed to record, though the cache has not seen it: no refusal, no duplicate", async (t) => {
    const w = await world(t, webappRgd());
    // No cache sees anything from here on; the first pass creates the children, then its record
    // (the status write) fails.
    w.fc.cluster.holdWatches();
    w.actor.create(instance("WebApp", "demo"));
    w.fc.cluster.faults.plant(
      { verb: "update", kind: "WebApp", subresource: "status" },
      { fail: { status: 500, reason: "InternalError" } },
    );
    await assert.rejects(reconcileInstance(w.fc.ctx, w.served, ns, "demo"), /500/);
    const created = { deploy: uidOf(w.actor, deployment("demo")), svc: uidOf(w.actor, service("demo")) };
    assert.deepEqual(w.record(webApp("demo")), {}, "nothing on record");
    const before = w.fc.cluster.requests.length;
    assert.deepEqual(await reconcileInstance(w.fc.ctx, w.served, ns, "demo"), {});
    // The create-only apply was refused (409), and the live object judged ours by its creation key.
    const deploymentRequests = w.fc.cluster.requests
      .slice(before)
      .filter((r) => r.kind === "Deployment")
      .map((r) => r.verb);
    assert.deepEqual(deploymentRequests.slice(0, 2), ["apply", "get"]);
    assert.deepEqual(w.record(webApp("demo")), created);
    assert.equal(w.actor.list("apps/v1", "Deployment").length, 1);
    assert.doesNotMatch(JSON.stringify(conditions(w.actor.read(webApp("demo")))), /already exists|not created by/);
  });
});

describe("reconcileInstance: converged", () => {
  it("a pass over a converged instance writes nothing", async (t) => {
    const w = await world(t, chainRgd());
    w.actor.create(instance("Chain", "x"));
    await w.pass("x");
    await w.pass("x");
    const writes = w.fc.cluster.writes().length;
    assert.deepEqual(await w.pass("x"), {});
    assert.deepEqual(w.fc.cluster.writes().slice(writes), []);
  });
});

describe("reconcileInstance: adoption", () => {
  const foreignDeployment = (): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "demo", namespace: ns, labels: { team: "web" } },
    spec: {
      replicas: 5,
      selector: { matchLabels: { app: "demo" } },
      template: { metadata: { labels: { app: "demo" } }, spec: { containers: [{ name: "web", image: "httpd" }] } },
    },
  });

  it("refuses to take over an object someone else made, and says so", async (t) => {
    const w = await world(t, webappRgd());
    const theirs = w.actor.create(foreignDeployment());
    w.actor.create(instance("WebApp", "demo"));
    await assert.rejects(w.pass("demo"), /deploy/);
    const live = w.actor.read(deployment("demo"));
    assert.equal(live?.metadata?.resourceVersion, theirs.metadata?.resourceVersion, "not written");
    assert.equal((live?.spec as { replicas?: number }).replicas, 5);
    assert.equal(w.record(webApp("demo")).deploy, undefined, "not recorded");
    assert.match(JSON.stringify(conditions(w.actor.read(webApp("demo")))), /not created by|already exists|adopt/i);
  });

  it("adopts it when the instance asks to, under its live uid and without our creation key", async (t) => {
    const w = await world(t, webappRgd());
    const theirs = w.actor.create(foreignDeployment());
    const asked = instance("WebApp", "demo");
    asked.metadata = { ...asked.metadata, annotations: { [ANNOTATIONS.adopt]: "true" } };
    w.actor.create(asked);
    await w.pass("demo");
    const live = w.actor.read(deployment("demo"));
    assert.equal(live?.metadata?.uid, theirs.metadata?.uid, "the same object, not a new one");
    assert.equal((live?.spec as { replicas?: number }).replicas, 1, "now written as the graph says");
    assert.equal(live?.metadata?.annotations?.[ANNOTATIONS.creationKey], undefined);
    assert.equal(w.record(webApp("demo")).deploy, theirs.metadata?.uid);
    const entry = readInventory(w.actor.read(webApp("demo")) ?? {}).entries.find((e) => e.nodeId === "deploy");
    assert.equal(entry?.ownership, "adopted");
  });
});

describe("reconcileInstance: pruning", () => {
  it("removes children no longer desired in reverse dependency waves: a held dependent holds its dependency", async (t) => {
    const w = await world(t, chainRgd());
    w.actor.create(instance("Chain", "x"));
    await w.pass("x");
    assert.deepEqual(Object.keys(w.record(chain("x"))).sort(), ["a", "b", "c"]);
    // c (which reads b) carries someone's finalizer: its deletion waits, and so must b's.
    w.actor.edit(configMap("x-c"), (o) => {
      o.metadata = { ...o.metadata, finalizers: ["example.com/hold"] };
    });
    w.actor.edit(chain("x"), (o) => {
      o.spec = { ...(o.spec as object), tail: false };
    });
    await w.pass("x");
    assert.deepEqual(
      verbs(w.fc, "ConfigMap").filter((v) => v.startsWith("delete")),
      ["delete x-c"],
    );
    assert.ok(w.actor.read(configMap("x-b")), "b waits for c");
    assert.ok(w.actor.read(configMap("x-c"))?.metadata?.deletionTimestamp);
    w.actor.edit(configMap("x-c"), (o) => {
      o.metadata = { ...o.metadata, finalizers: [] };
    });
    await w.pass("x");
    assert.deepEqual(
      verbs(w.fc, "ConfigMap").filter((v) => v.startsWith("delete")),
      ["delete x-c", "delete x-b"],
    );
    assert.equal(w.actor.read(configMap("x-b")), undefined);
    assert.ok(w.actor.read(configMap("x-a")), "a is still desired");
    assert.deepEqual(Object.keys(w.record(chain("x"))), ["a"]);
  });
});

describe("reconcileInstance: the ownership record", () => {
  it("a conflict on the record's write keeps every child on record, merged onto the other writer's copy", async (t) => {
    const w = await world(t, webappRgd());
    w.actor.create(instance("WebApp", "demo"));
    // Just before our status write (which carries the record), someone else writes the instance.
    w.fc.cluster.faults.beforeNext({ verb: "update", kind: "WebApp", subresource: "status" }, () => {
      w.actor.edit(webApp("demo"), (o) => {
        o.metadata = { ...o.metadata, labels: { ...o.metadata?.labels, team: "web" } };
      });
    });
    await assert.rejects(w.pass("demo"), /409|Conflict|modified/);
    assert.deepEqual(w.fc.cluster.faults.pending(), []);
    assert.deepEqual(w.record(webApp("demo")), {
      deploy: uidOf(w.actor, deployment("demo")),
      svc: uidOf(w.actor, service("demo")),
    });
    assert.equal(w.actor.read(webApp("demo"))?.metadata?.labels?.team, "web", "the other write is kept");
    // The next pass converges on what is there.
    assert.deepEqual(await w.pass("demo"), {});
    assert.equal(w.actor.list("apps/v1", "Deployment").length, 1);
  });
});

describe("reconcileInstance: deletion", () => {
  it("deletes children wave by wave in reverse topological order, and removes the finalizer only at the end", async (t) => {
    const w = await world(t, webappRgd());
    w.actor.create(instance("WebApp", "demo", { ingress: true }));
    await w.pass("demo");
    assert.deepEqual(Object.keys(w.record(webApp("demo"))).sort(), ["deploy", "ing", "svc"]);
    w.actor.edit(ingress("demo"), (o) => {
      o.metadata = { ...o.metadata, finalizers: ["example.com/hold"] };
    });
    w.actor.delete(webApp("demo"));
    const held = await w.pass("demo");
    assert.ok((held.requeueAfterMs ?? 0) > 0, "held: looked at again");
    assert.ok(
      w.actor.read(service("demo")) && w.actor.read(deployment("demo")),
      "nothing below the held wave is deleted",
    );
    assert.deepEqual(w.actor.read(webApp("demo"))?.metadata?.finalizers, [FINALIZER]);
    w.actor.edit(ingress("demo"), (o) => {
      o.metadata = { ...o.metadata, finalizers: [] };
    });
    for (let i = 0; i < 5 && w.actor.read(webApp("demo")) !== undefined; i++) await w.pass("demo");
    assert.equal(w.actor.read(webApp("demo")), undefined, "the instance is gone");
    const order = w.fc.cluster.requests
      .filter((r) => r.verb === "delete" || (r.verb === "patch" && r.kind === "WebApp"))
      .map((r) => `${r.verb} ${r.kind}`);
    assert.deepEqual(order.slice(-4), ["delete Ingress", "delete Service", "delete Deployment", "patch WebApp"]);
    assert.equal(w.actor.read(service("demo")), undefined);
    assert.equal(w.actor.read(deployment("demo")), undefined);
  });

  it("an instance gone mid-pass leaves none of the children that pass created behind", async (t) => {
    const w = await world(t, webappRgd());
    w.actor.create(instance("WebApp", "demo"));
    // After the Deployment is created, the instance goes for good (finalizer stripped, deleted).
    w.fc.cluster.faults.beforeNext({ verb: "apply", kind: "Service" }, () => {
      w.actor.edit(webApp("demo"), (o) => {
        o.metadata = { ...o.metadata, finalizers: [] };
      });
      w.actor.delete(webApp("demo"));
    });
    assert.deepEqual(await w.pass("demo"), {});
    assert.deepEqual(w.fc.cluster.faults.pending(), []);
    assert.equal(w.actor.read(webApp("demo")), undefined);
    assert.deepEqual(w.actor.list("apps/v1", "Deployment"), []);
    assert.deepEqual(w.actor.list("v1", "Service"), []);
  });
});

describe("reconcileInstance: suspension", () => {
  it("a suspended instance is evaluated for its status only: nothing applied, nothing pruned", async (t) => {
    const w = await world(t, webappRgd());
    w.actor.create(instance("WebApp", "demo", { ingress: true }));
    await w.pass("demo");
    const before = w.fc.cluster.writes().filter((r) => r.kind !== "WebApp" && r.kind !== "Event").length;
    w.actor.edit(webApp("demo"), (o) => {
      o.metadata = {
        ...o.metadata,
        annotations: { ...o.metadata?.annotations, [ANNOTATIONS.reconcile]: RECONCILE_SUSPENDED },
      };
      o.spec = { ...(o.spec as object), replicas: 3, ingress: false };
    });
    assert.deepEqual(await w.pass("demo"), {});
    assert.equal(
      w.fc.cluster.writes().filter((r) => r.kind !== "WebApp" && r.kind !== "Event").length,
      before,
      "no child written or deleted",
    );
    assert.equal((w.actor.read(deployment("demo"))?.spec as { replicas?: number }).replicas, 1);
    assert.ok(w.actor.read(ingress("demo")), "not pruned");
    assert.match(JSON.stringify(w.actor.read(webApp("demo"))?.status), /[Ss]uspend/);
  });
});

describe("reconcileInstance: member clusters", () => {
  it("places a child in the cluster it names, records it there, and deletes it there", async (t) => {
    const euWest = new FakeCluster("eu-west");
    const graph = rgd("regional", {
      schema: { apiVersion: "v1alpha1", kind: "Regional", spec: { message: 'string | default="hi"' } },
      resources: [
        {
          id: "settings",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}-settings" },
            data: { message: "${schema.spec.message}" },
          },
        },
        {
          id: "regional",
          cluster: "eu-west",
          clusters: ["eu-west"],
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}" },
            data: { message: "${settings.data.message}" },
          },
        },
      ],
    });
    const w = await world(t, graph, [euWest]);
    const member = new Actor(euWest);
    w.actor.create(instance("Regional", "app"));
    for (let i = 0; i < 3 && member.read(configMap("app")) === undefined; i++) await w.pass("app");
    assert.equal(member.read(configMap("app"))?.data !== undefined, true, "written in eu-west");
    assert.equal(w.actor.read(configMap("app")), undefined, "not in the hub");
    const regionalRef = { apiVersion: "kro.run/v1alpha1", kind: "Regional", namespace: ns, name: "app" };
    assert.equal(w.record(regionalRef).regional, `eu-west:${uidOf(member, configMap("app"))}`);
    w.actor.delete(regionalRef);
    for (let i = 0; i < 5 && w.actor.read(regionalRef) !== undefined; i++) await w.pass("app");
    assert.equal(w.actor.read(regionalRef), undefined);
    assert.equal(member.read(configMap("app")), undefined, "deleted in eu-west");
    assert.equal(w.actor.read(configMap("app-settings")), undefined);
  });
});

describe("reconcileInstance: the write gate places every child, in every apply round", () => {
  /** A remote child that needs another child's data first: it appears in the pass's second round. */
  const laterRound = rgd("laterround", {
    schema: { apiVersion: "v1alpha1", kind: "LaterRound", spec: { region: "string" } },
    resources: [
      {
        id: "settings",
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}-settings" },
          data: { message: "hi" },
        },
      },
      {
        id: "regional",
        cluster: "${schema.spec.region}",
        clusters: ["eu-west"],
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}" },
          data: { message: "${settings.data.message}" },
        },
      },
    ],
  });
  /** The pass reports the refused child as a resource error (retried with backoff); the status says why. */
  const refusal = (error: unknown) => {
    assert.match(String(error), /resource error: regional/);
  };
  const regionalError = (w: World, name: string) =>
    conditions(w.actor.read({ apiVersion: "kro.run/v1alpha1", kind: "LaterRound", namespace: ns, name }))
      .map((c) => c.message ?? "")
      .join("\n");

  it("a target the RGD does not allow gets no request, though it is registered", async (t) => {
    const euWest = new FakeCluster("eu-west");
    const usEast = new FakeCluster("us-east");
    const w = await world(t, laterRound, [euWest, usEast]);
    w.actor.create(instance("LaterRound", "app", { region: "us-east" }));
    for (let i = 0; i < 3; i++) await w.pass("app").catch(refusal);
    assert.ok(w.actor.read(configMap("app-settings")), "the local child converged");
    assert.deepEqual(usEast.writes(), [], "no write reached us-east");
    assert.equal(w.actor.read(configMap("app")), undefined, "nothing in the hub instead");
    assert.match(regionalError(w, "app"), /cluster "us-east" is not allowed for resource "regional"/);
  });

  it("an empty target is an error, never the controller's own cluster", async (t) => {
    const euWest = new FakeCluster("eu-west");
    const w = await world(t, laterRound, [euWest]);
    w.actor.create(instance("LaterRound", "empty", { region: "" }));
    for (let i = 0; i < 3; i++) await w.pass("empty").catch(refusal);
    assert.ok(w.actor.read(configMap("empty-settings")));
    assert.equal(w.actor.read(configMap("empty")), undefined, "not written in the hub");
    assert.deepEqual(euWest.writes(), []);
    assert.match(regionalError(w, "empty"), /target cluster evaluated to ""; an empty target is an error/);
  });

  it("an allowed target is written there", async (t) => {
    const euWest = new FakeCluster("eu-west");
    const w = await world(t, laterRound, [euWest]);
    w.actor.create(instance("LaterRound", "ok", { region: "eu-west" }));
    for (let i = 0; i < 3; i++) await w.pass("ok");
    assert.deepEqual(new Actor(euWest).read(configMap("ok"))?.data, { message: "hi" });
  });
});

describe("reconcileInstance: an RGD grants only what its recorded author may do", () => {
  const authored = (author: string | undefined) => {
    const object = rgd("platformcfg", {
      schema: { apiVersion: "v1alpha1", kind: "PlatformCfg", spec: { value: "string" } },
      resources: [
        {
          id: "own",
          template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${schema.metadata.name}-own" } },
        },
        {
          id: "system",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}-sys", namespace: "kube-system" },
          },
        },
      ],
    });
    if (author !== undefined)
      object.metadata = {
        ...object.metadata,
        annotations: { [ANNOTATIONS.authoredBy]: author, [ANNOTATIONS.authoredGroups]: "platform" },
      };
    return object;
  };
  /** rita may write ConfigMaps in the instances' namespace only, until `everywhere`. */
  let everywhere = false;
  const ritaHere = (spec: Record<string, unknown>) => {
    const attributes = spec.resourceAttributes as { namespace?: string } | undefined;
    return spec.user !== "rita" || everywhere || attributes?.namespace === ns;
  };

  it("writes what the author may, refuses the rest with no request and a condition naming the author; a later grant converges", async (t) => {
    everywhere = false;
    const w = await world(t, authored("rita"), [], { controller: { authorCheck: "Enforced" } });
    w.fc.cluster.authorize = ritaHere;
    w.actor.create(instance("PlatformCfg", "p", { value: "x" }));
    await w.pass("p").catch((error: unknown) => {
      assert.match(String(error), /resource error: system/);
    });
    assert.ok(w.actor.read(configMap("p-own")), "the child in the instance's namespace is written");
    assert.deepEqual(
      verbs(w.fc, "ConfigMap").filter((v) => v.endsWith(" p-sys")),
      [],
      "no request for kube-system",
    );
    const message = conditions(
      w.actor.read({ apiVersion: "kro.run/v1alpha1", kind: "PlatformCfg", namespace: ns, name: "p" }),
    )
      .map((c) => c.message ?? "")
      .join("\n");
    assert.match(
      message,
      /rita, who wrote the RGD, may not create configmaps in namespace kube-system; an RGD grants only what its author may do/,
    );
    everywhere = true;
    w.fc.cluster.clock.advance(31_000);
    await w.pass("p");
    assert.ok(w.actor.read({ ...configMap("p-sys"), namespace: "kube-system" }), "written once rita may");
  });

  it("an RGD without a recorded author is bounded by the controller's rights, as in kro", async (t) => {
    const w = await world(t, authored(undefined), [], { controller: { authorCheck: "Enforced" } });
    w.fc.cluster.authorize = () => false;
    w.actor.create(instance("PlatformCfg", "q", { value: "x" }));
    await w.pass("q");
    assert.ok(w.actor.read({ ...configMap("q-sys"), namespace: "kube-system" }));
  });
});

describe("reconcileInstance: the write gate asks the recorded requester where instance data chose the scope", () => {
  const teamConfig = rgd("teamconfig", {
    schema: { apiVersion: "v1alpha1", kind: "TeamConfig", spec: { team: "string" } },
    resources: [
      {
        id: "own",
        template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${schema.metadata.name}-own" } },
      },
      {
        id: "shared",
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}", namespace: "${schema.spec.team}" },
        },
      },
    ],
  });
  const recorded = (name: string, team: string) => requestedInstance("TeamConfig", name, { team }, "alice", ["devs"]);
  /** alice may create and patch ConfigMaps in team-a only. */
  const aliceInTeamA = (spec: Record<string, unknown>) => {
    const attributes = spec.resourceAttributes as { namespace?: string } | undefined;
    return spec.user !== "alice" || attributes?.namespace === "team-a";
  };

  it("writes where the requester holds the right; refuses elsewhere with no request, naming user, verb and scope", async (t) => {
    const w = await world(t, teamConfig, [], { controller: { authorCheck: "Enforced" } });
    w.fc.cluster.authorize = aliceInTeamA;
    w.actor.create(recorded("ok", "team-a"));
    await w.pass("ok");
    assert.ok(w.actor.read({ ...configMap("ok"), namespace: "team-a" }), "written in team-a");

    w.actor.create(recorded("bad", "team-b"));
    await w.pass("bad").catch((error: unknown) => {
      assert.match(String(error), /resource error: shared/);
    });
    assert.ok(w.actor.read(configMap("bad-own")), "the child the RGD grants is written");
    assert.deepEqual(
      verbs(w.fc, "ConfigMap").filter((v) => v.endsWith(" bad")),
      [],
      "no request for team-b",
    );
    const message = conditions(
      w.actor.read({ apiVersion: "kro.run/v1alpha1", kind: "TeamConfig", namespace: ns, name: "bad" }),
    )
      .map((c) => c.message ?? "")
      .join("\n");
    assert.match(message, /alice, who wrote the instance, may not create configmaps in namespace team-b/);
  });

  it("the RGD gets a requester webhook on the controller's port that records the writer; none with the author check off", async (t) => {
    const w = await world(t, teamConfig, [], { controller: { authorCheck: "Enforced" } });
    const hook = w.actor.read({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      name: "kro-requester.teamconfig",
    }) as unknown as {
      webhooks: { rules: unknown[]; failurePolicy: string; clientConfig: { url: string; caBundle: string } }[];
    };
    const webhook = hook.webhooks[0];
    assert.ok(webhook);
    assert.equal(webhook.failurePolicy, "Ignore");
    assert.deepEqual(webhook.rules, [
      {
        apiGroups: ["kro.run"],
        apiVersions: ["*"],
        resources: ["teamconfigs"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
    ]);
    const answer = await postJson(webhook.clientConfig.url, Buffer.from(webhook.clientConfig.caBundle, "base64"), {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { uid: "u-1", userInfo: { username: "alice", groups: ["devs"] }, object: { metadata: {} } },
    });
    const patch = JSON.parse(Buffer.from(String(answer.response.patch), "base64").toString("utf8")) as unknown;
    assert.deepEqual(patch, [
      {
        op: "add",
        path: "/metadata/annotations",
        value: { [ANNOTATIONS.requestedBy]: "alice", [ANNOTATIONS.requestedGroups]: "devs" },
      },
    ]);
    const unchecked = await world(t, teamConfig);
    assert.equal(
      unchecked.actor.read({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        name: "kro-requester.teamconfig",
      }),
      undefined,
      "with the author check off nothing is asked, so nothing is recorded",
    );
  });

  it("a right revoked after admission stops the next write", async (t) => {
    const w = await world(t, teamConfig, [], { controller: { authorCheck: "Enforced" } });
    let revoked = false;
    w.fc.cluster.authorize = (spec) => !revoked || spec.user !== "alice";
    w.actor.create(recorded("app", "team-a"));
    await w.pass("app");
    const first = w.actor.read({ ...configMap("app"), namespace: "team-a" });
    assert.ok(first);
    revoked = true;
    // Past the review cache's lifetime: the gate asks again.
    w.fc.cluster.clock.advance(31_000);
    w.actor.delete({ ...configMap("app"), namespace: "team-a" });
    await w.pass("app").catch(() => undefined);
    assert.equal(w.actor.read({ ...configMap("app"), namespace: "team-a" }), undefined, "not re-created");
  });
});

describe("reconcileInstance: the read gate", () => {
  const extRead = rgd("extread", {
    schema: {
      apiVersion: "v1alpha1",
      kind: "ExtRead",
      spec: { ns: "string" },
      status: { value: "${secret.data.?token.orValue('none')}" },
    },
    resources: [
      {
        id: "secret",
        externalRef: { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: "${schema.spec.ns}" } },
      },
    ],
  });
  const ref = (name: string): ObjectRef => ({ apiVersion: "kro.run/v1alpha1", kind: "ExtRead", namespace: ns, name });

  it("hides a read the recorded requester may not make: the value never reaches status, and the instance says why", async (t) => {
    const w = await world(t, extRead, [], { controller: { authorCheck: "Enforced" } });
    w.fc.cluster.authorize = (spec) =>
      spec.user !== "gina" || (spec.resourceAttributes as { namespace?: string } | undefined)?.namespace === "team-a";
    for (const team of ["team-a", "team-b"])
      w.actor.create({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "token", namespace: team },
        data: { token: Buffer.from(team).toString("base64") },
      });
    for (const [name, team] of [
      ["mine", "team-a"],
      ["theirs", "team-b"],
    ] as const) {
      w.actor.create(requestedInstance("ExtRead", name, { ns: team }, "gina"));
      for (let i = 0; i < 2; i++) await w.pass(name).catch(() => undefined);
    }
    const status = (name: string) => w.actor.read(ref(name))?.status as { value?: string } | undefined;
    assert.equal(status("mine")?.value, Buffer.from("team-a").toString("base64"));
    assert.notEqual(status("theirs")?.value, Buffer.from("team-b").toString("base64"));
    assert.match(
      conditions(w.actor.read(ref("theirs")))
        .map((c) => c.message ?? "")
        .join("\n"),
      /reading for "secret": gina, who wrote the instance, may not get secrets "token" in namespace team-b/,
    );
  });
});

/** gina may do nothing in team-b, where a Secret "token" waits to be read. */
function ginaKeptOutOfTeamB(w: World): void {
  w.fc.cluster.authorize = (spec) =>
    spec.user !== "gina" || (spec.resourceAttributes as { namespace?: string } | undefined)?.namespace !== "team-b";
  w.actor.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "token", namespace: "team-b" },
    data: { token: Buffer.from("team-b").toString("base64") },
  });
}

describe("reconcileInstance: a refused read and the writes beside it", () => {
  // `copy` reads the Secret; the chain a → b does not read it.
  const beside = rgd("beside", {
    schema: { apiVersion: "v1alpha1", kind: "Beside", spec: { ns: "string" } },
    resources: [
      {
        id: "secret",
        externalRef: { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: "${schema.spec.ns}" } },
      },
      cm("copy", { token: "${secret.data.token}" }),
      cm("a", { value: "a" }),
      cm("b", { value: "${a.data.value}-b" }),
    ],
  });
  function cm(id: string, data: Record<string, string>) {
    return {
      id,
      template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `\${schema.metadata.name}-${id}` }, data },
    };
  }

  it("what does not read the refused one converges in the same pass, every level of it; what reads it is never written", async (t) => {
    const w = await world(t, beside, [], { controller: { authorCheck: "Enforced" } });
    ginaKeptOutOfTeamB(w);
    w.actor.create(requestedInstance("Beside", "x", { ns: "team-b" }, "gina"));
    await assert.rejects(w.pass("x"), /reading for "secret": gina, who wrote the instance, may not get secrets/);
    assert.equal(
      (w.actor.read(configMap("x-b"))?.data as { value?: string } | undefined)?.value,
      "a-b",
      "the chain's second level, in one pass",
    );
    assert.equal(w.actor.read(configMap("x-copy")), undefined);
  });
});

describe("reconcileInstance: the read gate in a later apply round", () => {
  // The Secret's namespace is read from a child's answer: the read is first named in round 2.
  const laterRead = rgd("laterread", {
    schema: { apiVersion: "v1alpha1", kind: "LaterRead", spec: { ns: "string" } },
    resources: [
      {
        id: "pointer",
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}-ptr" },
          data: { ns: "${schema.spec.ns}" },
        },
      },
      {
        id: "secret",
        externalRef: { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: "${pointer.data.ns}" } },
      },
      {
        id: "copy",
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}-copy" },
          data: { token: "${secret.data.token}" },
        },
      },
    ],
  });

  it("judges a read named by another child's answer before any child made from it is written", async (t) => {
    const w = await world(t, laterRead, [], { controller: { authorCheck: "Enforced" } });
    ginaKeptOutOfTeamB(w);
    const recorded = (name: string) => requestedInstance("LaterRead", name, { ns: "team-b" }, "gina");
    // The first instance makes team-b's Secrets watched; the second finds the read cached in round 2.
    w.actor.create(recorded("first"));
    for (let i = 0; i < 3; i++) await w.pass("first").catch(() => undefined);
    w.actor.create(recorded("second"));
    await w.pass("second").catch(() => undefined);
    assert.ok(w.actor.read(configMap("second-ptr")), "the pointer is written in round 1");
    const copy = w.actor.read(configMap("second-copy")) as { data?: Record<string, string> } | undefined;
    assert.notEqual(copy?.data?.token, Buffer.from("team-b").toString("base64"), "team-b's token is never copied");
    assert.match(
      conditions(w.actor.read({ apiVersion: "kro.run/v1alpha1", kind: "LaterRead", namespace: ns, name: "second" }))
        .map((c) => c.message ?? "")
        .join("\n"),
      /reading for "secret": gina, who wrote the instance, may not get secrets "token" in namespace team-b/,
    );
  });
});

describe("reconcileInstance: retention", () => {
  it("deleting the instance releases a child marked helm.sh/resource-policy: keep and deletes the rest", async (t) => {
    const graph = rgd("kept", {
      schema: { apiVersion: "v1alpha1", kind: "Kept", spec: {} },
      resources: [
        {
          id: "crdlike",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}-kept", annotations: { "helm.sh/resource-policy": "keep" } },
            data: { a: "1" },
          },
        },
        {
          id: "plain",
          template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${schema.metadata.name}-plain" } },
        },
      ],
    });
    const w = await world(t, graph);
    const ref = { apiVersion: "kro.run/v1alpha1", kind: "Kept", namespace: ns, name: "app" };
    w.actor.create(instance("Kept", "app"));
    for (let i = 0; i < 3 && w.actor.read(configMap("app-plain")) === undefined; i++) await w.pass("app");
    assert.ok(w.actor.read(configMap("app-kept")));
    w.actor.delete(ref);
    for (let i = 0; i < 5 && w.actor.read(ref) !== undefined; i++) await w.pass("app");
    assert.equal(w.actor.read(ref), undefined, "the instance is gone");
    assert.equal(w.actor.read(configMap("app-plain")), undefined, "the unmarked child is deleted");
    const kept = w.actor.read(configMap("app-kept"));
    assert.ok(kept, "the kept child stays");
    assert.deepEqual(kept.data, { a: "1" }, "as it was");
    const labels: Record<string, string> = kept.metadata?.labels ?? {};
    assert.deepEqual(
      Object.keys(labels).filter((k) => k.startsWith("kro.run/")),
      [],
      "and carries nothing of ours",
    );
  });

  for (const readyWhen of [undefined, ['${nested.status.state == "ACTIVE"}']])
    it(`a parent waiting on a nested instance (${readyWhen === undefined ? "its Ready condition" : "a readyWhen on its status"}) looks again after the safety-net interval`, async (t) => {
      // The nested instance's readiness is written by another reconcile: its event is the only other wake-up.
      const inner = rgd("inner", {
        schema: { apiVersion: "v1alpha1", kind: "Inner", spec: { value: 'string | default="v"' } },
        resources: [
          {
            id: "cm",
            template: {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "${schema.metadata.name}-cm" },
              data: { value: "${schema.spec.value}" },
            },
          },
        ],
      });
      const outer = rgd("outer", {
        schema: { apiVersion: "v1alpha1", kind: "Outer", spec: {} },
        resources: [
          {
            id: "nested",
            template: {
              apiVersion: "kro.run/v1alpha1",
              kind: "Inner",
              metadata: { name: "${schema.metadata.name}-inner" },
              spec: { value: "x" },
            },
            ...(readyWhen === undefined ? {} : { readyWhen }),
          },
        ],
      });
      const fc = startFakeController({ controller: { requeueIntervalMs: 3000 } });
      t.after(() => fc.stop());
      await serveRgd(fc, inner);
      const served = await serveRgd(fc, outer);
      new Actor(fc.cluster).create(instance("Outer", "o"));
      await settle();
      await reconcileInstance(fc.ctx, served, ns, "o");
      await settle();
      assert.deepEqual(await reconcileInstance(fc.ctx, served, ns, "o"), { requeueAfterMs: 3000 });
      const status = new Actor(fc.cluster).read({
        apiVersion: "kro.run/v1alpha1",
        kind: "Outer",
        namespace: ns,
        name: "o",
      })?.status as { state?: string } | undefined;
      assert.equal(status?.state, "IN_PROGRESS");
    });
});

describe("reconcileInstance: a pass stopped by its time limit", () => {
  it("is tried again once per generation, then stays ERROR until something changes", async (t) => {
    const heavy = rgd("heavy", {
      schema: { apiVersion: "v1alpha1", kind: "Heavy", spec: { numbers: "[]integer" } },
      resources: [0, 1, 2, 3].map((i) => ({
        id: `cm${i}`,
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `\${schema.metadata.name}-${i}` },
          data: { n: `\${string(schema.spec.numbers.map(n, n * ${i + 2}).filter(n, n % 3 != 0).size())}` },
        },
      })),
    });
    // 1 ms of work: the first resource's expression alone takes longer.
    const fc = startFakeController({ controller: { evaluationTimeoutMs: 1 } });
    t.after(() => fc.stop());
    const served = await serveRgd(fc, heavy);
    new Actor(fc.cluster).create(instance("Heavy", "h", { numbers: Array.from({ length: 20_000 }, (_, i) => i) }));
    await settle();
    assert.deepEqual(await reconcileInstance(fc.ctx, served, ns, "h"), { requeueAfterMs: 30_000 });
    const status = () =>
      new Actor(fc.cluster).read({ apiVersion: "kro.run/v1alpha1", kind: "Heavy", namespace: ns, name: "h" })
        ?.status as { state?: string; conditions?: { type: string; message?: string }[] } | undefined;
    assert.equal(status()?.state, "ERROR");
    assert.match(JSON.stringify(status()?.conditions), /exceeded its time limit of 1 ms/);
    assert.deepEqual(await reconcileInstance(fc.ctx, served, ns, "h"), {}, "the second miss is not retried");
    assert.equal(status()?.state, "ERROR");
  });
});
