// The generated instance-author policy: which checks a graph needs, where, and how they are
// chunked under the API server's CEL cost budget.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS } from "../../api/index.js";
import { compileExpression, createKroCelEnvironment, jsonToCel } from "../../expr/index.js";
import { DEFAULT_CONTAINMENT, type CompiledNode } from "../../graph/index.js";
import {
  CHECKS_PER_POLICY,
  REQUESTER_RECORD_VALIDATION,
  authorChecks,
  authorPolicyObjects,
  policyBaseName,
  type AuthorPolicyInput,
} from "./author-policy-objects.js";

type Node = AuthorPolicyInput["nodes"][number];
const node = (
  id: string,
  apiVersion: string,
  kind: string,
  metadata: Record<string, unknown>,
  type: CompiledNode["type"] = "resource",
): Node => ({ id, type, apiVersion, kind, template: { apiVersion, kind, metadata } });

const kinds = new Map([
  ["v1/ConfigMap", { group: "", resource: "configmaps", namespaced: true }],
  ["v1/Secret", { group: "", resource: "secrets", namespaced: true }],
  [
    "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
    { group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", namespaced: false },
  ],
]);

function input(nodes: Node[], overrides: Partial<AuthorPolicyInput> = {}): AuthorPolicyInput {
  return {
    rgdName: "escalate",
    rgdUid: "uid-1",
    instance: { group: "kro.run", version: "v1alpha1", plural: "escalateapps", namespaced: true },
    nodes,
    kinds,
    policy: DEFAULT_CONTAINMENT,
    ...overrides,
  };
}

const checks = (i: AuthorPolicyInput) =>
  authorChecks({
    nodes: i.nodes,
    kinds: i.kinds,
    policy: i.policy,
    instanceNamespaced: i.instance.namespaced,
    ...(i.nested === undefined ? {} : { nested: i.nested }),
  });
const summary = (i: AuthorPolicyInput) =>
  checks(i)
    .filter((c) => c.when === undefined)
    .map((c) => `${c.verb} ${c.resource} ns=${c.namespace ?? "*"} name=${c.name ?? "*"} [${c.nodeIds.join(",")}]`);

describe("instance-author policy", () => {
  it("the RGD is the grant: only where instance data chooses the scope are create, patch and delete checked there", () => {
    const nodes = [
      node("own", "v1", "ConfigMap", { name: "${schema.metadata.name}" }),
      node("target", "v1", "ConfigMap", { name: "${schema.spec.name}", namespace: "${schema.spec.ns}" }),
      node("fixed", "v1", "Secret", { name: "fixed", namespace: "monitoring" }),
      node("follows", "v1", "Secret", { name: "f", namespace: "${own.metadata.namespace}" }),
      node("followsChosen", "v1", "Secret", { name: "g", namespace: "${target.metadata.namespace}" }),
      node("binding", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", { name: "${schema.spec.name}" }),
      node("fixedBinding", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", { name: "platform-readers" }),
      node("peer", "v1", "Secret", { name: "peer" }, "external"),
      node("chosenPeer", "v1", "Secret", { name: "peer", namespace: "${schema.spec.ns}" }, "external"),
    ];
    assert.deepEqual(summary(input(nodes)), [
      "create configmaps ns=(object.spec.ns) name=* [target]",
      "patch configmaps ns=(object.spec.ns) name=(object.spec.name) [target]",
      "delete configmaps ns=(object.spec.ns) name=(object.spec.name) [target]",
      "create secrets ns=* name=* [followsChosen]",
      'patch secrets ns=* name="g" [followsChosen]',
      'delete secrets ns=* name="g" [followsChosen]',
      "create clusterrolebindings ns=* name=* [binding]",
      "patch clusterrolebindings ns=* name=(object.spec.name) [binding]",
      "delete clusterrolebindings ns=* name=(object.spec.name) [binding]",
      'get secrets ns=(object.spec.ns) name="peer" [chosenPeer]',
    ]);
  });

  it("a namespace computed from the instance is checked where it evaluates; from anything else, in all namespaces", () => {
    const computed = checks(
      input([node("computed", "v1", "ConfigMap", { name: "x", namespace: "${schema.spec.ns.lowerAscii() + '-x'}" })]),
    )[0];
    assert.equal(computed?.namespace, "(object.spec.ns).lowerAscii()+'-x'");
    assert.deepEqual(computed.guards, ["object.?spec.?ns.hasValue()"]);
    assert.equal(
      checks(input([node("other", "v1", "ConfigMap", { name: "x", namespace: "${cfg.data.ns}" })]))[0]?.namespace,
      undefined,
    );
    assert.equal(
      checks(input([node("iter", "v1", "ConfigMap", { name: "x", namespace: "team-${schema.spec.t}" })]))[0]?.namespace,
      '"team-" + string((object.spec.t))',
    );
    // Opt-in annotations change nothing any more: the author check decides.
    assert.deepEqual(
      summary(
        input([node("c", "v1", "ConfigMap", { namespace: "${schema.spec.ns}" })], {
          policy: { ...DEFAULT_CONTAINMENT, allowCrossNamespace: true },
        }),
      ),
      summary(input([node("c", "v1", "ConfigMap", { namespace: "${schema.spec.ns}" })])),
    );
  });

  it("adoption needs update (and delete) of the adopted object, exempt children included", () => {
    const nodes = [node("cm", "v1", "ConfigMap", { name: "shared" }), node("s", "v1", "Secret", { name: "shared" })];
    const adoption = checks(input(nodes, { policy: { ...DEFAULT_CONTAINMENT, authorCheckExempt: ["cm", "s"] } }));
    assert.deepEqual(
      adoption.map(
        (c) =>
          `${c.verb} ${c.resource} ${c.name ?? "*"} when=${c.when === undefined ? "-" : /"delete"\]/.test(c.when) ? "adopt" : "delete"}`,
      ),
      [
        'update configmaps "shared" when=adopt',
        'patch configmaps "shared" when=adopt',
        'delete configmaps "shared" when=delete',
        'update secrets "shared" when=adopt',
        'patch secrets "shared" when=adopt',
        'delete secrets "shared" when=delete',
      ],
    );
    const objects = authorPolicyObjects(
      input(nodes, { policy: { ...DEFAULT_CONTAINMENT, authorCheckExempt: ["cm", "s"] } }),
    );
    const policy = objects[0] as { spec: { validations: { expression: string }[] } };
    assert.match(
      policy.spec.validations[0]?.expression ?? "",
      /^!\(object\.metadata\.\?annotations\[\?"kro\.run\/adopt"\]/,
    );
  });

  it("a nested RGD's children are checked at the outer instance's admission, with the values the outer template gives", () => {
    const inner = {
      rgdName: "env",
      namespaced: true,
      policy: DEFAULT_CONTAINMENT,
      nodes: [
        node("quota", "v1", "Secret", { name: "q", namespace: "${schema.spec.team}-env" }),
        node("bind", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", { name: "${schema.metadata.name}" }),
      ],
    };
    const outer = [
      {
        ...node("env", "kro.run/v1alpha1", "Env", { name: "${schema.metadata.name}-env" }),
        template: {
          apiVersion: "kro.run/v1alpha1",
          kind: "Env",
          metadata: { name: "${schema.metadata.name}-env" },
          spec: { team: "${schema.spec.team}" },
        },
      },
    ];
    const withEnv = new Map([
      ...kinds,
      ["kro.run/v1alpha1/Env", { group: "kro.run", resource: "envs", namespaced: true }],
    ]);
    const list = summary(
      input(outer, {
        kinds: withEnv,
        nested: (apiVersion, kind) => (apiVersion === "kro.run/v1alpha1" && kind === "Env" ? inner : undefined),
      }),
    );
    assert.deepEqual(
      list.filter((c) => c.startsWith("create")),
      // The inner instance lands in the outer instance's namespace: granted by the RGD; its children are not.
      [
        'create secrets ns=string(((object.spec.team))) + "-env" name=* [env/quota]',
        "create clusterrolebindings ns=* name=* [env/bind]",
      ],
    );
    assert.ok(
      list.includes('delete clusterrolebindings ns=* name=(string((object.metadata.name)) + "-env") [env/bind]'),
      list.join("\n"),
    );
  });

  it("merges identical checks, honours exemptions and the off switch", () => {
    const nodes = [
      node("a", "v1", "ConfigMap", { name: "${cfg.data.a}-x", namespace: "${cfg.data.ns}" }),
      node("b", "v1", "ConfigMap", { name: "${cfg.data.b}-y", namespace: "${cfg.data.ns}" }),
      node("s", "v1", "Secret", { name: "s", namespace: "${schema.spec.ns}" }),
    ];
    assert.deepEqual(summary(input(nodes)).slice(0, 3), [
      "create configmaps ns=* name=* [a,b]",
      "patch configmaps ns=* name=* [a,b]",
      "delete configmaps ns=* name=* [a,b]",
    ]);
    assert.equal(summary(input(nodes)).length, 6);
    assert.deepEqual(summary(input(nodes, { policy: { ...DEFAULT_CONTAINMENT, authorCheckExempt: ["s"] } })).length, 3);
    assert.deepEqual(authorPolicyObjects(input(nodes, { policy: { ...DEFAULT_CONTAINMENT, authorCheck: false } })), []);
  });

  it("builds a policy and binding owned by the RGD, skipping the controller's own writes", () => {
    const objects = authorPolicyObjects(
      input([node("chosen", "v1", "ConfigMap", { name: "x", namespace: "${cfg.data.ns}" })], {
        controllerUser: "system:serviceaccount:kro-system:kro-ts",
      }),
    );
    assert.deepEqual(
      objects.map((o) => `${String(o.kind)} ${(o.metadata as { name: string }).name}`),
      ["ValidatingAdmissionPolicy kro-author.escalate.0", "ValidatingAdmissionPolicyBinding kro-author.escalate.0"],
    );
    const policy = objects[0] as {
      metadata: { ownerReferences: { uid: string; kind: string }[] };
      spec: {
        matchConditions: { expression: string }[];
        validations: { expression: string; messageExpression: string }[];
        matchConstraints: unknown;
      };
    };
    assert.equal(policy.metadata.ownerReferences[0]?.uid, "uid-1");
    assert.deepEqual(policy.spec.matchConstraints, {
      resourceRules: [
        {
          apiGroups: ["kro.run"],
          apiVersions: ["v1alpha1"],
          resources: ["escalateapps"],
          operations: ["CREATE", "UPDATE"],
        },
      ],
    });
    assert.match(
      String(policy.spec.matchConditions[1]?.expression),
      /request\.userInfo\.username != "system:serviceaccount:kro-system:kro-ts"/,
    );
    assert.equal(
      policy.spec.validations.at(0)?.expression,
      'authorizer.group("").resource("configmaps").check("create").allowed()',
    );
    assert.match(String(policy.spec.validations.at(0)?.messageExpression), /may not create configmaps/);
  });

  it("chunks checks so no policy exceeds the API server's cost budget", () => {
    const nodes = Array.from({ length: 20 }, (_, i) =>
      node(`n${i}`, "v1", "ConfigMap", { name: `cm-${i}`, namespace: "${schema.spec.ns}" }),
    );
    const objects = authorPolicyObjects(input(nodes));
    const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy") as {
      spec: { validations: unknown[] };
    }[];
    // 20 creates merge into one; 20 patches, 20 deletes and 20 adoption updates are named: 61 checks.
    assert.deepEqual(
      policies.map((p) => p.spec.validations.length),
      // The first also holds the requester-record validation, which asks no authorizer.
      [CHECKS_PER_POLICY + 1, CHECKS_PER_POLICY, 61 - 2 * CHECKS_PER_POLICY],
    );
    assert.ok(CHECKS_PER_POLICY * 350_000 <= 10_000_000);
  });

  it("asks the authorizer at most twice per CEL expression, and never in a matchCondition", () => {
    // The API server stops one expression at 1,000,000 cost units and an authorizer call costs
    // 350,000: a third call fails the write (seen on 1.33). Every matchCondition is evaluated on
    // every write of the kind, the controller's own included (no early exit), so a call there
    // would be paid by writes the policy skips (docs/performance-archive.md, "Admission": the
    // gate).
    const nodes = [
      node("own", "v1", "ConfigMap", { name: "${schema.metadata.name}", annotations: {} }),
      node("target", "v1", "ConfigMap", { name: "${schema.spec.name}", namespace: "${schema.spec.ns}" }),
      node("binding", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", { name: "${schema.spec.name}" }),
    ];
    const objects = authorPolicyObjects(
      input(nodes, { controllerUser: "kro", policy: { ...DEFAULT_CONTAINMENT, authorCheckExempt: ["binding"] } }),
    );
    const specs = objects
      .filter((o) => o.kind === "ValidatingAdmissionPolicy")
      .map(
        (o) =>
          (
            o as {
              spec: {
                validations: { expression: string; messageExpression: string }[];
                matchConditions: { expression: string }[];
              };
            }
          ).spec,
      );
    const calls = (cel: string) => cel.split(".check(").length - 1;
    const validations = specs.flatMap((s) => s.validations);
    assert.ok(
      validations.some((v) => calls(v.expression) === 2),
      "a guarded scope asks one of two, the precise or the strictest",
    );
    for (const v of validations) assert.ok(calls(v.expression) <= 2 && calls(v.messageExpression) === 0, v.expression);
    for (const c of specs.flatMap((s) => s.matchConditions)) assert.equal(calls(c.expression), 0, c.expression);
  });

  it("admits a requester record only when it names the writer (or is absent)", () => {
    const env = createKroCelEnvironment();
    const validation = compileExpression(env, REQUESTER_RECORD_VALIDATION.expression);
    const admits = (annotations: Record<string, string> | undefined) =>
      validation.evaluate({
        object: jsonToCel({ metadata: annotations === undefined ? {} : { annotations } }),
        request: jsonToCel({ userInfo: { username: "alice", groups: ["devs", "system:authenticated"] } }),
      });
    assert.equal(admits(undefined), true);
    assert.equal(admits({ other: "x" }), true);
    assert.equal(admits({ [ANNOTATIONS.requestedBy]: "alice" }), true);
    assert.equal(
      admits({ [ANNOTATIONS.requestedBy]: "alice", [ANNOTATIONS.requestedGroups]: "devs,system:authenticated" }),
      true,
    );
    assert.equal(admits({ [ANNOTATIONS.requestedBy]: "system:admin" }), false);
    assert.equal(
      admits({ [ANNOTATIONS.requestedBy]: "alice", [ANNOTATIONS.requestedGroups]: "system:masters" }),
      false,
    );
    const first = authorPolicyObjects(
      input([node("target", "v1", "ConfigMap", { name: "x", namespace: "${schema.spec.ns}" })]),
    )[0] as { spec: { validations: unknown[] } };
    assert.deepEqual(first.spec.validations.at(-1), REQUESTER_RECORD_VALIDATION);
  });

  it("keeps long RGD names within the 253-character limit", () => {
    assert.equal(policyBaseName("web"), "kro-author.web");
    const long = policyBaseName("a".repeat(253));
    assert.ok(long.length + 4 <= 253 && long !== policyBaseName(`${"a".repeat(252)}b`));
  });
});
