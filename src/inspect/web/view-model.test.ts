import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { InstanceTree } from "../tree-model.js";
import { renderView } from "./view-html.js";
import { MAX_EVENTS, treeRows, uiViewOf, type ClusterSnapshot } from "./view-model.js";

const NOW = Date.parse("2026-12-01T12:00:00Z");

const leaf: InstanceTree = {
  apiVersion: "kro.run/v1alpha1",
  kind: "Leaf",
  name: "shop",
  namespace: "team-a",
  rgd: "leaf",
  ready: true,
  reason: "AllResourcesReady",
  message: "",
  nodes: [
    {
      id: "cm",
      apiVersion: "v1",
      kind: "ConfigMap",
      type: "resource",
      state: "Ready",
      reason: "applied",
      objects: [{ apiVersion: "v1", kind: "ConfigMap", name: "shop-leaf" }],
    },
  ],
};

const root: InstanceTree = {
  apiVersion: "kro.run/v1alpha1",
  kind: "Root",
  name: "shop",
  namespace: "team-a",
  rgd: "root",
  ready: false,
  state: "ERROR",
  reason: "ResourcesNotReady",
  message: "portal failed",
  nodes: [
    {
      id: "deploy",
      apiVersion: "apps/v1",
      kind: "Deployment",
      type: "resource",
      state: "WaitingForReadiness",
      reason: "readyWhen is not true yet",
      blockedBy: { expression: "deploy.status.ready" },
      objects: [{ apiVersion: "apps/v1", kind: "Deployment", name: "shop" }],
    },
    {
      id: "svc",
      apiVersion: "v1",
      kind: "Service",
      type: "resource",
      state: "WaitingOnDependency",
      reason: "waiting on deploy",
      blockedBy: { dependencies: ["deploy"], expression: "x" },
      objects: [],
    },
    {
      id: "ing",
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      type: "resource",
      state: "Excluded",
      reason: "includeWhen is false",
      blockedBy: { expression: "schema.spec.port == 1" },
      objects: [],
    },
    {
      id: "leaf",
      apiVersion: "kro.run/v1alpha1",
      kind: "Leaf",
      type: "resource",
      state: "Ready",
      reason: "applied",
      objects: [{ apiVersion: "kro.run/v1alpha1", kind: "Leaf", name: "shop", instance: leaf }],
    },
    {
      id: "portal",
      apiVersion: "v1",
      kind: "Service",
      type: "resource",
      state: "Error",
      reason: "apply Service: 422 Invalid",
      objects: [],
    },
    {
      id: "old",
      apiVersion: "v1",
      kind: "Secret",
      type: "collection",
      state: "Deleting",
      reason: "deleting",
      objects: [
        { apiVersion: "v1", kind: "Secret", name: "a" },
        { apiVersion: "v1", kind: "Secret", name: "b" },
      ],
    },
  ],
};

const instanceObject = (name: string, ready: string, state?: string) => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "Root",
  metadata: { name, namespace: "team-a", creationTimestamp: "2026-12-01T11:59:30Z" },
  status: {
    ...(state === undefined ? {} : { state }),
    conditions: [{ type: "Ready", status: ready, reason: "R", message: `m-${name}` }],
  },
});

function snapshot(overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    server: "https://127.0.0.1:6443",
    rgds: {
      ok: true,
      value: [
        {
          rgd: {
            metadata: { name: "root", generation: 3, creationTimestamp: "2026-12-01T11:00:00Z" },
            status: { state: "Active", conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "" }] },
          },
          kind: { apiVersion: "kro.run/v1alpha1", kind: "Root" },
          scope: "all namespaces",
          instances: {
            ok: true,
            value: [
              { object: instanceObject("zeta", "False", "ERROR"), tree: { ok: true, value: root } },
              {
                object: instanceObject("alpha", "True", "ACTIVE"),
                tree: {
                  ok: false,
                  notPermitted: true,
                  message: 'configmaps is forbidden: User "bob" cannot get resource "configmaps"',
                },
              },
            ],
          },
        },
      ],
    },
    events: { ok: true, value: [] },
    ...overrides,
  };
}

describe("kro ui view model", () => {
  it("maps every kro tree state to its colour and words, nested instances indented under their node", () => {
    const rows = treeRows(root);
    assert.deepEqual(
      rows.map((r) => [r.depth, r.label, r.state, r.stateText]),
      [
        [0, "deploy: Deployment/shop", "waiting-readiness", "waiting for readiness"],
        [0, "svc: Service", "waiting-dependency", "waiting on dependency"],
        [0, "ing: Ingress", "excluded", "excluded"],
        [0, "leaf: Leaf/shop", "ready", "ready"],
        [1, "cm: ConfigMap/shop-leaf", "ready", "ready"],
        [0, "portal: Service", "error", "error"],
        [0, "old: Secret ×2", "deleting", "deleting"],
      ],
    );
    assert.equal(rows[0]?.reason, "readyWhen is not true yet: deploy.status.ready", "the blocking expression is shown");
    assert.equal(rows[1]?.reason, "waiting on deploy", "a dependency wait names the dependency, not an expression");
    assert.equal(rows[2]?.reason, "includeWhen is false: schema.spec.port == 1");
  });

  it("orders instances, takes the state from the tree, and falls back to the instance's own status when the tree was refused", () => {
    const view = uiViewOf(snapshot(), NOW);
    assert.ok(view.rgds.ok);
    const [rgd] = view.rgds.value;
    assert.ok(rgd !== undefined);
    assert.equal(rgd.state, "ready");
    assert.equal(rgd.graphUrl, "graph.svg?rgd=root&generation=3");
    assert.ok(rgd.instances.ok);
    const [alpha, zeta] = rgd.instances.value;
    assert.ok(alpha !== undefined && zeta !== undefined);
    assert.equal(alpha.key, "team-a/alpha");
    assert.equal(alpha.state, "ready");
    assert.equal(alpha.tree.ok, false);
    assert.equal(zeta.state, "error");
    assert.equal(zeta.age, "30s");
    assert.deepEqual(zeta.conditions, [{ type: "Ready", status: "False", reason: "R", message: "m-zeta" }]);
  });

  it("keeps the newest events first and at most MAX_EVENTS", () => {
    const events = Array.from({ length: MAX_EVENTS + 5 }, (_, i) => ({
      metadata: { name: `e${String(i)}` },
      type: i === 7 ? "Warning" : "Normal",
      reason: `R${String(i)}`,
      message: "m",
      lastTimestamp: new Date(NOW - (MAX_EVENTS + 5 - i) * 1000).toISOString(),
      involvedObject: { kind: "Root", namespace: "team-a", name: "shop" },
    }));
    const view = uiViewOf(snapshot({ events: { ok: true, value: events } }), NOW);
    assert.ok(view.events.ok);
    assert.equal(view.events.value.length, MAX_EVENTS);
    assert.equal(view.events.value[0]?.reason, `R${String(MAX_EVENTS + 4)}`);
    assert.equal(view.events.value[0].object, "Root/team-a/shop");
  });
});

describe("kro ui HTML", () => {
  it("says not permitted with the server's message, and shows nothing else for a refused read", () => {
    const html = renderView(
      uiViewOf(
        snapshot({
          rgds: {
            ok: false,
            notPermitted: true,
            message: 'resourcegraphdefinitions.kro.run is forbidden: User "bob" cannot list',
          },
          events: { ok: false, notPermitted: false, message: "connection refused" },
        }),
        NOW,
      ),
    );
    assert.match(
      html,
      /<strong>not permitted:<\/strong> ResourceGraphDefinitions — resourcegraphdefinitions\.kro\.run is forbidden: User &quot;bob&quot; cannot list/,
    );
    assert.match(html, /<strong>could not read:<\/strong> Events — connection refused/);
    assert.doesNotMatch(html, /data-rgd=/);
  });

  it("colours each node by state and shows a refused tree as not permitted", () => {
    const html = renderView(uiViewOf(snapshot(), NOW));
    assert.match(
      html,
      /<li class="node state-error depth-0" data-state="error" data-depth="0">.*portal: Service.*apply Service: 422 Invalid/,
    );
    assert.match(
      html,
      /<li class="node state-ready depth-1" data-state="ready" data-depth="1">.*cm: ConfigMap\/shop-leaf/,
    );
    assert.match(
      html,
      /data-instance="team-a\/alpha" data-state="ready"[\s\S]*not permitted:<\/strong> the tree of team-a\/alpha — configmaps is forbidden/,
    );
  });

  it("escapes every text from the cluster", () => {
    const hostile = snapshot();
    const evil = "<img src=x onerror=alert(1)>\"'&";
    const html = renderView(
      uiViewOf(
        {
          ...hostile,
          server: evil,
          events: {
            ok: true,
            value: [{ type: "Warning", reason: evil, message: evil, involvedObject: { kind: evil, name: evil } }],
          },
        },
        NOW,
      ),
    );
    assert.doesNotMatch(html, /<img src=x/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;&quot;&#39;&amp;/);
  });
});
