import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { relevantWatchErrors } from "./unwatchable-kinds.js";
import type { OwnedChild } from "./inventory.js";

const errors = new Map([
  ["servicemonitor", "cannot watch ServiceMonitor (monitoring.coreos.com/v1): no resource for kind"],
  ["certificate", "cannot watch Certificate (cert-manager.io/v1): no resource for kind"],
  ["route", "cannot watch HTTPRoute (gateway.networking.k8s.io/v1): forbidden"],
]);
const rendered = (nodeId: string) => ({
  apiVersion: "v1",
  kind: "X",
  metadata: { name: nodeId, labels: { "kro.run/node-id": nodeId } },
});
const owned = (nodeId: string): OwnedChild => ({
  apiVersion: "cert-manager.io/v1",
  kind: "Certificate",
  name: "c",
  namespace: "ns",
  uid: "u",
  nodeId,
  ownership: "created",
});

const graph = {
  nodes: [
    { id: "servicemonitor", type: "resource" },
    { id: "certificate", type: "resource" },
    { id: "route", type: "collection" },
    { id: "db", type: "external" },
  ],
} as unknown as Parameters<typeof relevantWatchErrors>[0];

describe("relevantWatchErrors", () => {
  it("drops the kinds of nodes that render nothing and own nothing (a chart template turned off)", () => {
    assert.deepEqual([...relevantWatchErrors(graph, errors, errors, { apply: [] }, { entries: [] })], []);
  });

  it("keeps a kind a node renders now, and one whose objects are still on record (they cannot be pruned unseen)", () => {
    const kept = relevantWatchErrors(
      graph,
      errors,
      errors,
      { apply: [rendered("route")] },
      { entries: [owned("certificate")] },
    );
    assert.deepEqual([...kept.keys()].sort(), ["certificate", "route"]);
    assert.equal(kept.get("route"), errors.get("route"));
  });

  it("keeps what a node reads: an externalRef, and a chart's lookup scope, even when nothing is rendered", () => {
    const external = new Map([["db", 'cannot watch Secret (v1) for resource "db": forbidden']]);
    assert.deepEqual(
      [...relevantWatchErrors(graph, external, external, { apply: [] }, { entries: [] }).keys()],
      ["db"],
    );
    const lookup = new Map([["servicemonitor", "the chart's lookups did not settle"]]);
    assert.deepEqual(
      [...relevantWatchErrors(graph, lookup, new Map(), { apply: [] }, { entries: [] }).keys()],
      ["servicemonitor"],
      "a scope error is not the node's own kind",
    );
  });
});
