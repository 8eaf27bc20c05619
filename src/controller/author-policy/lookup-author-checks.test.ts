// A chart's declared lookups become get/list checks of the instance-author policy.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd, DEFAULT_CONTAINMENT } from "../../graph/index.js";
import { authorChecks } from "./author-policy-objects.js";
import { lookupAuthorNodes } from "./lookup-author-checks.js";

const graph = (template: string) => {
  const result = compileRgd({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "g" },
    spec: {
      resourceKind: { group: "t.example.com", version: "v1", kind: "PApp" },
      helm: {
        templates: { "c/templates/cm.yaml": template },
        charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c", version: "1.0.0" }, files: {} }],
      },
      childResources: [{ id: "cm", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/cm.yaml" }],
    },
  });
  assert.ok(result.graph, JSON.stringify(result.issues));
  return result.graph;
};

const checksOf = (template: string, crossNamespace = false) => {
  const g = graph(template);
  const kinds = new Map([
    ["v1/ConfigMap", { group: "", resource: "configmaps", namespaced: true }],
    ["v1/Secret", { group: "", resource: "secrets", namespaced: true }],
    ["v1/Node", { group: "", resource: "nodes", namespaced: false }],
  ]);
  return authorChecks({
    instanceNamespaced: true,
    nodes: [...g.nodes, ...lookupAuthorNodes(g, crossNamespace)],
    kinds,
    policy: DEFAULT_CONTAINMENT,
  })
    .filter((c) => c.verb === "get" || c.verb === "list")
    .map((c) => `${c.verb} ${c.resource} ns=${c.namespace ?? "*"} name=${c.name ?? "*"} by ${c.nodeIds.join(",")}`);
};

describe("lookup author checks", () => {
  it("the RGD is the grant: a lookup in the instance's namespace or a literal one needs no right of the instance author", () => {
    assert.deepEqual(checksOf('{{ lookup "v1" "Secret" .Release.Namespace "db" }}'), []);
    assert.deepEqual(checksOf('{{ lookup "v1" "Secret" .Release.Namespace "" }}'), []);
    assert.deepEqual(checksOf('{{ lookup "v1" "Secret" "kube-system" "x" }}'), []);
    assert.deepEqual(checksOf('{{ lookup "v1" "Node" "" "n1" }}'), []);
  });
  it("where instance data chooses: a computed namespace is checked in all namespaces, get and list", () => {
    assert.deepEqual(checksOf('{{ lookup "v1" "Secret" .Values.ns .Values.n }}', true), [
      "get secrets ns=* name=* by cm",
      "list secrets ns=* name=* by cm",
    ]);
    assert.deepEqual(checksOf('{{ lookup "v1" "Node" "" .Values.n }}'), [
      "get nodes ns=* name=* by cm",
      "list nodes ns=* name=* by cm",
    ]);
  });
});
