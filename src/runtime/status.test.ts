import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateInstance } from "./evaluate.js";
import { compileFixture, compileValue, dig, instanceOf } from "../../test/unit-support/runtime/fixtures.js";
import { createMemoryLookup } from "./memory-lookup.js";
import { buildInstanceStatus } from "./status.js";
import type { CompiledGraph } from "../graph/index.js";
import type { InstanceEvaluation, KubeJson } from "./types.js";

const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:05:00Z";

function converge(
  graph: CompiledGraph,
  instance: KubeJson,
  status: (o: KubeJson) => KubeJson | undefined = () => undefined,
): InstanceEvaluation {
  const lookup = createMemoryLookup();
  let evaluation = evaluateInstance(graph, instance, lookup);
  for (let i = 0; i < 5; i++) {
    lookup.put(
      ...evaluation.apply.map((o) => {
        const s = status(o);
        return s === undefined ? o : { ...o, status: s };
      }),
    );
    evaluation = evaluateInstance(graph, instance, lookup);
  }
  return evaluation;
}

type Cond = {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
};
const conditions = (status: KubeJson): Cond[] => status.conditions as Cond[];
const byType = (status: KubeJson, type: string): Cond | undefined => conditions(status).find((c) => c.type === type);

describe("buildInstanceStatus: built-in conditions and state", () => {
  const webapp = compileFixture("webapp");
  const instance = instanceOf(
    webapp,
    { name: "shop", replicas: 1, regions: ["eu"], ingress: { enabled: false } },
    { generation: 4 },
  );
  const available = (o: KubeJson) => (o.kind === "Deployment" ? { availableReplicas: 1 } : undefined);

  it("all resources ready: ACTIVE, Ready True, user fields projected, conditions ordered with Ready last", () => {
    const status = buildInstanceStatus(webapp, instance, converge(webapp, instance, available), { now: T0 });
    assert.equal(status.state, "ACTIVE");
    assert.equal(status.available, 1);
    assert.equal(status.url, "http://shop.team");
    assert.deepEqual(
      conditions(status).map((c) => [c.type, c.status, c.reason]),
      [
        ["InstanceManaged", "True", "Managed"],
        ["GraphResolved", "True", "Resolved"],
        ["ResourcesReady", "True", "AllResourcesReady"],
        ["Ready", "True", "Ready"],
      ],
    );
    assert.ok(conditions(status).every((c) => c.observedGeneration === 4 && c.lastTransitionTime === T0));
  });

  it("the True conditions carry kro's own messages (pkg/controller/instance/status.go)", () => {
    const status = buildInstanceStatus(webapp, instance, converge(webapp, instance, available), { now: T0 });
    assert.deepEqual(
      ["InstanceManaged", "GraphResolved", "ResourcesReady"].map((t) => byType(status, t)?.message),
      [
        "instance is properly managed with finalizers and labels",
        "runtime graph created and all resources resolved",
        "all resources are created and ready",
      ],
    );
  });

  it("first pass: IN_PROGRESS, Ready False copied from ResourcesReady, pending status fields omitted", () => {
    const status = buildInstanceStatus(webapp, instance, evaluateInstance(webapp, instance, createMemoryLookup()), {
      now: T0,
    });
    assert.equal(status.state, "IN_PROGRESS");
    assert.equal(status.url, undefined, "svc is not observed: url is omitted");
    assert.equal(status.available, undefined, "deploy is not observed: available is omitted");
    const resources = byType(status, "ResourcesReady");
    assert.ok(resources);
    // kro: mark.ResourcesInProgress("waiting for resource resolution: %s") while a dependency is pending.
    assert.equal(resources.status, "Unknown");
    assert.equal(resources.reason, "ResourcesInProgress");
    assert.match(
      resources.message,
      /^waiting for resource resolution: .*resource "svc" waits for "deploy" to be ready/,
    );
    assert.deepEqual(
      [byType(status, "Ready")?.status, byType(status, "Ready")?.reason, byType(status, "Ready")?.message],
      ["Unknown", "ResourcesInProgress", resources.message],
    );
  });

  it("nothing pending but a resource not ready: False ResourcesNotReady saying it waits, IN_PROGRESS, not an error", () => {
    const done = converge(webapp, instance, available);
    const waiting: InstanceEvaluation = {
      ...done,
      pending: false,
      nodes: done.nodes.map((n) =>
        n.id === "deploy"
          ? {
              ...n,
              ready: false,
              state: "WAITING_FOR_READINESS",
              pending: { kind: "readiness", message: `resource "deploy": readyWhen is not satisfied yet` },
            }
          : n,
      ),
    };
    const status = buildInstanceStatus(webapp, instance, waiting, { now: T0 });
    assert.deepEqual(
      [
        byType(status, "ResourcesReady")?.status,
        byType(status, "ResourcesReady")?.reason,
        byType(status, "ResourcesReady")?.message,
      ],
      [
        "False",
        "ResourcesNotReady",
        `waiting for at least one resource to become ready: resource "deploy": readyWhen is not satisfied yet`,
      ],
    );
    assert.equal(status.state, "IN_PROGRESS");
    assert.equal(byType(status, "Stalled"), undefined, "waiting is not stalled");
    assert.equal(byType(status, "Reconciling")?.status, "True");
    assert.doesNotMatch(JSON.stringify(status), /error/i);
  });

  it("a resource in error among the not-ready ones: ERROR, and the message names its error", () => {
    const done = converge(webapp, instance, available);
    const broken: InstanceEvaluation = {
      ...done,
      pending: false,
      nodes: done.nodes.map((n) =>
        n.id === "deploy" ? { ...n, ready: false, state: "ERROR", error: "cannot evaluate spec.replicas" } : n,
      ),
    };
    const status = buildInstanceStatus(webapp, instance, broken, { now: T0 });
    assert.equal(status.state, "ERROR");
    assert.equal(
      byType(status, "ResourcesReady")?.message,
      `at least one resource reports an error: resource "deploy": cannot evaluate spec.replicas`,
    );
  });

  it("keeps lastTransitionTime when a condition's status did not change, else stamps now", () => {
    const evaluation = converge(webapp, instance, available);
    const first = buildInstanceStatus(webapp, instance, evaluation, { now: T0 });
    const again = buildInstanceStatus(webapp, { ...instance, status: first }, evaluation, { now: T1 });
    assert.ok(conditions(again).every((c) => c.lastTransitionTime === T0));
    const failing = buildInstanceStatus(webapp, { ...instance, status: first }, evaluation, {
      now: T1,
      applyErrors: { svc: "admission webhook denied" },
    });
    assert.equal(byType(failing, "ResourcesReady")?.lastTransitionTime, T1);
    assert.equal(byType(failing, "InstanceManaged")?.lastTransitionTime, T0);
  });

  it("apply errors: ERROR and ResourcesReady False ResourcesNotReady in kro's words", () => {
    const status = buildInstanceStatus(webapp, instance, converge(webapp, instance, available), {
      now: T0,
      applyErrors: { svc: "denied by webhook" },
    });
    assert.equal(status.state, "ERROR");
    assert.deepEqual(
      [byType(status, "ResourcesReady")?.reason, byType(status, "ResourcesReady")?.message],
      ["ResourcesNotReady", "at least one resource reports an error: svc: denied by webhook"],
    );
  });

  it("a real evaluation error: ERROR and ResourcesNotReady", () => {
    const bad = {
      ...instance,
      spec: { name: "shop", replicas: 1, regions: ["eu", "eu"], ingress: { enabled: false } },
    };
    const status = buildInstanceStatus(webapp, bad, evaluateInstance(webapp, bad, createMemoryLookup()), { now: T0 });
    assert.equal(status.state, "ERROR");
    assert.match(
      byType(status, "ResourcesReady")?.message ?? "",
      /^at least one resource reports an error: resource "cms": forEach items 0 and 1/,
    );
  });

  it("suspended and deleting", () => {
    const evaluation = converge(webapp, instance, available);
    const suspended = buildInstanceStatus(webapp, instance, evaluation, { now: T0, suspended: true });
    assert.deepEqual(
      [suspended.state, byType(suspended, "ResourcesReady")?.reason, byType(suspended, "Ready")?.status],
      ["IN_PROGRESS", "ReconciliationSuspended", "False"],
    );
    const deleting = buildInstanceStatus(webapp, instance, evaluation, { now: T0, deleting: true });
    assert.deepEqual(
      [deleting.state, byType(deleting, "ResourcesReady")?.status, byType(deleting, "ResourcesReady")?.reason],
      ["DELETING", "Unknown", "ResourcesInProgress"],
    );
    assert.equal(byType(deleting, "ResourcesReady")?.message, "deleting resources in reverse topological order");
  });

  it("a terminating child: ResourcesReady False ResourceDeleting", () => {
    const lookup = createMemoryLookup();
    const [deploy] = evaluateInstance(webapp, instance, lookup).apply;
    assert.ok(deploy);
    lookup.put({ ...deploy, metadata: { ...(deploy.metadata as KubeJson), deletionTimestamp: T0 } });
    const status = buildInstanceStatus(webapp, instance, evaluateInstance(webapp, instance, lookup), { now: T0 });
    assert.equal(byType(status, "ResourcesReady")?.reason, "ResourceDeleting");
    assert.match(
      byType(status, "ResourcesReady")?.message ?? "",
      /Deployment team\/shop \(apps\/v1\) is currently being deleted/,
    );
  });
});

describe("buildInstanceStatus: author conditions (§6.11)", () => {
  const graph = compileFixture("author-conditions");
  const instance = instanceOf(graph, { name: "c" });

  it("replace the built-ins, read kro's internal Ready via runtime.condition, skip pending ones", () => {
    const evaluation = converge(graph, instance);
    const status = buildInstanceStatus(graph, instance, evaluation, { now: T0 });
    assert.equal(status.phase, "started");
    assert.deepEqual(
      conditions(status).map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ["Phased", "False", "Phase", ""],
        ["Ready", "True", "FromKro", "kro says True"],
      ],
    );
    assert.equal(status.state, "ACTIVE", "state stays kro-driven");
  });

  it("a pending author condition keeps the condition written before", () => {
    const evaluation = converge(graph, instance);
    const previous = { type: "Reported", status: "True", reason: "Report", message: "", lastTransitionTime: T0 };
    const status = buildInstanceStatus(graph, { ...instance, status: { conditions: [previous] } }, evaluation, {
      now: T1,
    });
    assert.deepEqual(byType(status, "Reported"), previous);
  });

  it("once the data exists the condition is written with its own transition time", () => {
    const lookup = createMemoryLookup();
    let evaluation = evaluateInstance(graph, instance, lookup);
    lookup.put(
      ...evaluation.apply.map((o) => ({
        ...o,
        metadata: { ...(o.metadata as KubeJson), annotations: { reported: "False" } },
      })),
    );
    evaluation = evaluateInstance(graph, instance, lookup);
    const status = buildInstanceStatus(graph, instance, evaluation, { now: T1 });
    assert.deepEqual(dig(byType(status, "Reported"), "status"), "False");
    assert.equal(byType(status, "Reported")?.lastTransitionTime, T1);
  });
});

describe("buildInstanceStatus: a status field that fails is never reported as healthy", () => {
  const graph = compileValue({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "st" },
    spec: {
      schema: {
        apiVersion: "v1alpha1",
        kind: "StatusErr",
        spec: { count: "string" },
        status: { n: "${int(schema.spec.count)}" },
      },
      resources: [
        {
          id: "cm",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}" },
            data: { a: "b" },
          },
        },
      ],
    },
  });
  const instance = instanceOf(graph, { count: "not-a-number" });

  it("state ERROR comes with GraphResolved and Ready False, and the message", () => {
    const status = buildInstanceStatus(graph, instance, converge(graph, instance), { now: T0 });
    assert.equal(status.state, "ERROR");
    const ready = byType(status, "Ready");
    assert.equal(ready?.status, "False");
    assert.match(ready.message, /status could not be resolved: .*n/);
    assert.equal(byType(status, "GraphResolved")?.status, "False");
    assert.equal(byType(status, "ResourcesReady")?.status, "True", "the resources themselves are fine");
  });
});
