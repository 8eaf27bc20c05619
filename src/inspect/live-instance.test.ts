import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, clientFor, FakeCluster } from "../../test/unit-support/fake-api/index.js";
import { compileValue } from "../../test/unit-support/runtime/fixtures.js";
import { evaluateLiveInstance, selectorString } from "./live-instance.js";
import { instanceTreeOf, TREE_STATES } from "./tree-model.js";

describe("selectorString", () => {
  it("writes matchLabels and every matchExpressions operator in kubectl's selector syntax", () => {
    assert.equal(selectorString({ apiVersion: "v1", kind: "ConfigMap", matchLabels: {} }), "");
    assert.equal(
      selectorString({
        apiVersion: "v1",
        kind: "ConfigMap",
        matchLabels: { app: "web", tier: "front" },
        matchExpressions: [
          { key: "env", operator: "In", values: ["a", "b"] },
          { key: "zone", operator: "NotIn", values: ["x"] },
          { key: "owned", operator: "Exists" },
          { key: "legacy", operator: "DoesNotExist" },
        ],
      }),
      "app=web,tier=front,env in (a,b),zone notin (x),owned,!legacy",
    );
  });
});

describe("evaluateLiveInstance across clusters", () => {
  const rgd = {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "regional" },
    spec: {
      schema: { apiVersion: "v1alpha1", kind: "Regional", spec: { value: "string" } },
      resources: [
        {
          id: "remote",
          cluster: "b",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "app" },
            data: { v: "${schema.spec.value}" },
          },
        },
        {
          id: "fan",
          forEach: [{ region: '${["b"]}' }],
          cluster: "${region}",
          clusters: ["b"],
          template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app-${region}" }, data: { v: "x" } },
        },
      ],
    },
  };
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "regionals.kro.run" },
    spec: {
      group: "kro.run",
      scope: "Namespaced",
      names: { plural: "regionals", singular: "regional", kind: "Regional", listKind: "RegionalList" },
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };

  function clusters() {
    const hub = new FakeCluster("hub");
    const b = new FakeCluster("b");
    const hubActor = new Actor(hub, "admin");
    hubActor.create(crd);
    const instance = hubActor.create({
      apiVersion: "kro.run/v1alpha1",
      kind: "Regional",
      metadata: { name: "one", namespace: "apps" },
      spec: { value: "v1" },
    });
    const uid = instance.metadata?.uid ?? "";
    // The hub holds an unrelated ConfigMap of the remote child's name: it must never stand for it.
    hubActor.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "app", namespace: "apps" },
      data: { v: "hub" },
    });
    const bActor = new Actor(b, "kro");
    const labels = {
      "kro.run/instance-id": uid,
      "kro.run/instance-kind": "Regional",
      "kro.run/node-id": "fan",
      "app.kubernetes.io/managed-by": "kro",
    };
    bActor.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "app", namespace: "apps", annotations: { "kro.run/cluster": "b" } },
      data: { v: "v1" },
    });
    bActor.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "app-b", namespace: "apps", labels, annotations: { "kro.run/cluster": "b" } },
      data: { v: "x" },
    });
    return { hub: clientFor(hub), b: clientFor(b), bCluster: b };
  }

  it("reads a child placed in another cluster there (objects, collections), never the hub's object of the same name", async () => {
    const graph = compileValue(rgd);
    const { hub, b } = clusters();
    const live = await evaluateLiveInstance(hub, graph, "apps", "one", {
      clientFor: (c) => (c === "b" ? Promise.resolve(b) : Promise.reject(new Error(`no ${c}`))),
    });
    const tree = instanceTreeOf(graph, live.instance, live.evaluation, new Map(), live.unreadable);
    const remote = tree.nodes.find((n) => n.id === "remote");
    assert.deepEqual(
      remote?.objects.map((o) => o.cluster),
      ["b"],
    );
    assert.equal(remote.state, TREE_STATES.ready);
    const fan = tree.nodes.find((n) => n.id === "fan");
    assert.deepEqual(
      fan?.objects.map((o) => `${o.name}@${o.cluster ?? "hub"}`),
      ["app-b@b"],
    );
    assert.equal(live.unreadable.size, 0);
  });

  it("a collection list another cluster answers with 404 (its kind not served there) has no items there; the rest of the tree is still read", async () => {
    const graph = compileValue(rgd);
    const { hub, b, bCluster } = clusters();
    bCluster.faults.plant({ verb: "list", kind: "ConfigMap" }, { fail: { status: 404, reason: "NotFound" } }, 10);
    const live = await evaluateLiveInstance(hub, graph, "apps", "one", {
      clientFor: (c) => (c === "b" ? Promise.resolve(b) : Promise.reject(new Error(`no ${c}`))),
    });
    assert.ok(bCluster.faults.fired.length > 0, "the list was answered 404");
    const tree = instanceTreeOf(graph, live.instance, live.evaluation, new Map(), live.unreadable);
    assert.deepEqual(
      tree.nodes.find((n) => n.id === "remote")?.objects.map((o) => o.cluster),
      ["b"],
      "the object beside it is read in b",
    );
    assert.equal(tree.nodes.find((n) => n.id === "fan")?.objects.length, 0);
    assert.equal(live.unreadable.size, 0, "b answered: it is not unreadable");
  });

  it("a cluster that cannot be reached leaves its children unknown, with why — never waiting, never the hub's copy", async () => {
    const graph = compileValue(rgd);
    const { hub } = clusters();
    const live = await evaluateLiveInstance(hub, graph, "apps", "one", {
      clientFor: (c) => Promise.reject(new Error(`cluster "${c}": cannot read its registration: forbidden`)),
    });
    const tree = instanceTreeOf(graph, live.instance, live.evaluation, new Map(), live.unreadable);
    for (const id of ["remote", "fan"]) {
      const node = tree.nodes.find((n) => n.id === id);
      assert.equal(node?.state, TREE_STATES.unknown, id);
      assert.equal(node.objects.length, 0, id);
      assert.match(node.reason, /cluster "b": cannot read its registration: forbidden/);
    }
  });
});
