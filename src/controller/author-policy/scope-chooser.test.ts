// Who chooses where a child lands: the RGD (granted) or the instance's data (checked).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scopeChooser, type ScopedNode } from "./scope-chooser.js";

const node = (id: string, metadata: Record<string, unknown>): ScopedNode => ({ id, template: { metadata } });
const graph = (...nodes: ScopedNode[]) => new Map(nodes.map((n) => [n.id, n]));

describe("scopeChooser", () => {
  it("the instance's own namespace and literals are the RGD's choice; spec and expressions are the instance's", () => {
    const nodes = graph();
    assert.equal(scopeChooser(node("a", {}), "namespace", nodes), "rgd");
    assert.equal(scopeChooser(node("a", { namespace: null }), "namespace", nodes), "rgd");
    assert.equal(scopeChooser(node("a", { namespace: "${schema.metadata.namespace}" }), "namespace", nodes), "rgd");
    assert.equal(scopeChooser(node("a", { namespace: "monitoring" }), "namespace", nodes), "rgd");
    assert.equal(scopeChooser(node("a", { namespace: "${schema.spec.ns}" }), "namespace", nodes), "instance");
    assert.equal(scopeChooser(node("a", { namespace: "team-${schema.spec.t}" }), "namespace", nodes), "instance");
    assert.equal(scopeChooser(node("a", { namespace: 7 }), "namespace", nodes), "instance");
  });

  it("a cluster-scoped name is the RGD's only when it is a literal", () => {
    const nodes = graph();
    assert.equal(scopeChooser(node("r", { name: "platform-readers" }), "name", nodes), "rgd");
    assert.equal(scopeChooser(node("r", { name: "${schema.metadata.name}-role" }), "name", nodes), "instance");
    assert.equal(scopeChooser(node("r", {}), "name", nodes), "instance");
  });

  it("follows a namespace read from another resource to where that resource lands", () => {
    const deployment = node("deployment", {});
    const chosen = node("chosen", { namespace: "${schema.spec.ns}" });
    const nodes = graph(deployment, chosen);
    assert.equal(
      scopeChooser(node("svc", { namespace: "${deployment.metadata.namespace}" }), "namespace", nodes),
      "rgd",
    );
    assert.equal(
      scopeChooser(node("svc", { namespace: "${deployment.?metadata.?namespace}" }), "namespace", nodes),
      "rgd",
    );
    assert.equal(
      scopeChooser(node("svc", { namespace: "${chosen.metadata.namespace}" }), "namespace", nodes),
      "instance",
    );
    // Another field of the peer, an unknown id, or a cycle proves nothing.
    assert.equal(
      scopeChooser(node("svc", { namespace: "${deployment.metadata.name}" }), "namespace", nodes),
      "instance",
    );
    assert.equal(
      scopeChooser(node("svc", { namespace: "${nobody.metadata.namespace}" }), "namespace", nodes),
      "instance",
    );
    const a = node("a", { namespace: "${b.metadata.namespace}" });
    const b = node("b", { namespace: "${a.metadata.namespace}" });
    assert.equal(scopeChooser(a, "namespace", graph(a, b)), "instance");
  });

  it("a Go-template child lands in the instance's namespace unless it writes a namespace itself", () => {
    const nodes = graph();
    const tpl = (template: string): ScopedNode => ({ id: "t", template, templateSource: {} });
    assert.equal(scopeChooser(tpl("kind: ConfigMap\nmetadata:\n  name: x\n"), "namespace", nodes), "rgd");
    assert.equal(scopeChooser(tpl("metadata:\n  namespace: {{ .Values.ns }}\n"), "namespace", nodes), "instance");
    assert.equal(scopeChooser(tpl('metadata:\n  namespace: "{{ .Release.Namespace }}"\n'), "namespace", nodes), "rgd");
    assert.equal(scopeChooser(tpl("metadata:\n  namespace: {{- $.Release.Namespace -}}\n"), "namespace", nodes), "rgd");
    assert.equal(
      scopeChooser(
        tpl("a:\n  namespace: {{ .Release.Namespace }}\nb:\n  namespace: kube-system-{{ .Values.x }}\n"),
        "namespace",
        nodes,
      ),
      "instance",
    );
  });
});
