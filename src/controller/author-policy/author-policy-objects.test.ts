// The generated instance-author policy: which checks a graph needs, where, and how they are
// chunked under the API server's CEL cost budget.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_CONTAINMENT, type CompiledNode } from "../../graph/index.js";
import { CHECKS_PER_POLICY, authorChecks, authorPolicyObjects, policyBaseName, type AuthorPolicyInput } from "./author-policy-objects.js";

type Node = AuthorPolicyInput["nodes"][number];
const node = (id: string, apiVersion: string, kind: string, metadata: Record<string, unknown>, type: CompiledNode["type"] = "resource"): Node => ({ id, type, apiVersion, kind, template: { apiVersion, kind, metadata } });

const kinds = new Map([
  ["v1/ConfigMap", { group: "", resource: "configmaps", namespaced: true }],
  ["v1/Secret", { group: "", resource: "secrets", namespaced: true }],
  ["rbac.authorization.k8s.io/v1/ClusterRoleBinding", { group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", namespaced: false }],
]);

function input(nodes: Node[], overrides: Partial<AuthorPolicyInput> = {}): AuthorPolicyInput {
  return { rgdName: "escalate", rgdUid: "uid-1", instance: { group: "kro.run", version: "v1alpha1", plural: "escalateapps", namespaced: true }, nodes, kinds, policy: DEFAULT_CONTAINMENT, ...overrides };
}

const summary = (i: AuthorPolicyInput) => authorChecks(i).map((c) => `${c.verb} ${c.resource} ns=${c.namespace ?? "*"} name=${c.name ?? "*"} [${c.nodeIds.join(",")}]`);

describe("instance-author policy", () => {
  it("checks create, patch and delete of every child where it lands", () => {
    const nodes = [
      node("own", "v1", "ConfigMap", { name: "${schema.metadata.name}" }),
      node("target", "v1", "ConfigMap", { name: "${schema.spec.name}", namespace: "${schema.spec.ns}" }),
      node("fixed", "v1", "Secret", { name: "fixed", namespace: "monitoring" }),
      node("binding", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", { name: "${schema.spec.name}" }),
      node("peer", "v1", "Secret", { name: "peer" }, "external"),
    ];
    assert.deepEqual(summary(input(nodes)), [
      "create configmaps ns=request.namespace name=* [own]",
      "patch configmaps ns=request.namespace name=object.metadata.name [own]",
      "delete configmaps ns=request.namespace name=object.metadata.name [own]",
      "create configmaps ns=object.?spec.?ns.orValue(request.namespace) name=* [target]",
      "patch configmaps ns=object.?spec.?ns.orValue(request.namespace) name=object.?spec.?name.orValue(\"\") [target]",
      "delete configmaps ns=object.?spec.?ns.orValue(request.namespace) name=object.?spec.?name.orValue(\"\") [target]",
      "create secrets ns=\"monitoring\" name=* [fixed]",
      "patch secrets ns=\"monitoring\" name=\"fixed\" [fixed]",
      "delete secrets ns=\"monitoring\" name=\"fixed\" [fixed]",
      "create clusterrolebindings ns=* name=* [binding]",
      "patch clusterrolebindings ns=* name=object.?spec.?name.orValue(\"\") [binding]",
      "delete clusterrolebindings ns=* name=object.?spec.?name.orValue(\"\") [binding]",
      "get secrets ns=request.namespace name=\"peer\" [peer]",
    ]);
  });

  it("an instance-chosen namespace is checked in the instance's namespace under containment, cluster-wide once the RGD opts out", () => {
    const nodes = [node("computed", "v1", "ConfigMap", { name: "x", namespace: "${schema.spec.ns + '-x'}" })];
    assert.equal(authorChecks(input(nodes))[0]?.namespace, "request.namespace");
    assert.equal(authorChecks(input(nodes, { policy: { ...DEFAULT_CONTAINMENT, allowCrossNamespace: true } }))[0]?.namespace, undefined);
  });

  it("merges identical checks, honours exemptions and the off switch", () => {
    const nodes = [node("a", "v1", "ConfigMap", { name: "${schema.spec.a}-x" }), node("b", "v1", "ConfigMap", { name: "${schema.spec.b}-y" }), node("s", "v1", "Secret", { name: "s" })];
    assert.deepEqual(summary(input(nodes)).slice(0, 3), [
      "create configmaps ns=request.namespace name=* [a,b]",
      "patch configmaps ns=request.namespace name=* [a,b]",
      "delete configmaps ns=request.namespace name=* [a,b]",
    ]);
    assert.deepEqual(summary(input(nodes, { policy: { ...DEFAULT_CONTAINMENT, authorCheckExempt: ["s"] } })).length, 3);
    assert.deepEqual(authorPolicyObjects(input(nodes, { policy: { ...DEFAULT_CONTAINMENT, authorCheck: false } })), []);
  });

  it("builds a policy and binding owned by the RGD, skipping the controller's own writes", () => {
    const objects = authorPolicyObjects(input([node("own", "v1", "ConfigMap", { name: "x" })], { controllerUser: "system:serviceaccount:kro-system:kro-ts" }));
    assert.deepEqual(objects.map((o) => `${String(o.kind)} ${(o.metadata as { name: string }).name}`), ["ValidatingAdmissionPolicy kro-author.escalate.0", "ValidatingAdmissionPolicyBinding kro-author.escalate.0"]);
    const policy = objects[0] as { metadata: { ownerReferences: { uid: string; kind: string }[] }; spec: { matchConditions: { expression: string }[]; validations: { expression: string; messageExpression: string }[]; matchConstraints: unknown } };
    assert.equal(policy.metadata.ownerReferences[0]?.uid, "uid-1");
    assert.deepEqual(policy.spec.matchConstraints, { resourceRules: [{ apiGroups: ["kro.run"], apiVersions: ["v1alpha1"], resources: ["escalateapps"], operations: ["CREATE", "UPDATE"] }] });
    assert.match(String(policy.spec.matchConditions[1]?.expression), /request\.userInfo\.username != "system:serviceaccount:kro-system:kro-ts"/);
    assert.equal(policy.spec.validations.at(0)?.expression, "authorizer.group(\"\").resource(\"configmaps\").namespace(request.namespace).check(\"create\").allowed()");
    assert.match(String(policy.spec.validations.at(0)?.messageExpression), /may not create configmaps/);
  });

  it("chunks checks so no policy exceeds the API server's cost budget", () => {
    const nodes = Array.from({ length: 20 }, (_, i) => node(`n${i}`, "v1", "ConfigMap", { name: `cm-${i}` }));
    const objects = authorPolicyObjects(input(nodes));
    const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy") as { spec: { validations: unknown[] } }[];
    // 20 creates merge into one; 20 patches and 20 deletes are named: 41 checks.
    assert.deepEqual(policies.map((p) => p.spec.validations.length), [CHECKS_PER_POLICY, 41 - CHECKS_PER_POLICY]);
    assert.ok(CHECKS_PER_POLICY * 350_000 <= 10_000_000);
  });

  it("keeps long RGD names within the 253-character limit", () => {
    assert.equal(policyBaseName("web"), "kro-author.web");
    const long = policyBaseName("a".repeat(253));
    assert.ok(long.length + 4 <= 253 && long !== policyBaseName(`${"a".repeat(252)}b`));
  });
});
