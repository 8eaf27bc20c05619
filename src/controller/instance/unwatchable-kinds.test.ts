import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { relevantWatchErrors } from "./unwatchable-kinds.js";
import type { OwnedChild } from "./inventory.js";

const errors = new Map([
  ["servicemonitor", "cannot watch ServiceMonitor (monitoring.coreos.com/v1): no resource for kind"],
  ["certificate", "cannot watch Certificate (cert-manager.io/v1): no resource for kind"],
  ["route", "cannot watch HTTPRoute (gateway.networking.k8s.io/v1): forbidden"],
]);
const rendered = (nodeId: string) => ({ apiVersion: "v1", kind: "X", metadata: { name: nodeId, labels: { "kro.run/node-id": nodeId } } });
const owned = (nodeId: string): OwnedChild => ({ apiVersion: "cert-manager.io/v1", kind: "Certificate", name: "c", namespace: "ns", uid: "u", nodeId, ownership: "created" });

describe("relevantWatchErrors", () => {
  it("drops the kinds of nodes that render nothing and own nothing (a chart template turned off)", () => {
    assert.deepEqual([...relevantWatchErrors(errors, { apply: [] }, { entries: [] })], []);
  });

  it("keeps a kind a node renders now, and one whose objects are still on record (they cannot be pruned unseen)", () => {
    const kept = relevantWatchErrors(errors, { apply: [rendered("route")] }, { entries: [owned("certificate")] });
    assert.deepEqual([...kept.keys()].sort(), ["certificate", "route"]);
    assert.equal(kept.get("route"), errors.get("route"));
  });
});
