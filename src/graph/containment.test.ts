// Namespace containment at compile time: how a child's namespace is classified, and which
// children of a namespaced instance are reported unless the RGD opted in.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { createKroCelEnvironment } from "../expr/index.js";
import { compileRgd } from "./compile.js";
import { classifyMetadataValue, containmentPolicyOf } from "./containment.js";
import { builtinSchemaResolver, type BuiltinSchemaBundle } from "./schema-resolver.js";

const root = new URL("../../../", import.meta.url);
const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
) as BuiltinSchemaBundle;
const resolver = builtinSchemaResolver(bundle);
const env = createKroCelEnvironment({ enableRuntime: true });

function escalation(annotations: Record<string, string> = {}, scope?: "Cluster") {
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "escalate", annotations },
    spec: {
      schema: {
        apiVersion: "v1alpha1",
        kind: "EscalateApp",
        ...(scope ? { scope } : {}),
        spec: { ns: "string", name: "string", sa: "string" },
      },
      resources: [
        {
          id: "own",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}", ...(scope ? { namespace: "${schema.spec.ns}" } : {}) },
          },
        },
        {
          id: "fixed",
          template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "monitoring" } },
        },
        // A cluster-scoped instance has no metadata.namespace (kro's verdict): it reads its spec instead.
        {
          id: "same",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "y", namespace: scope ? "${schema.spec.ns}" : "${schema.metadata.namespace}" },
          },
        },
        {
          id: "target",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.spec.name}", namespace: "${schema.spec.ns}" },
          },
        },
        {
          id: "computed",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "z", namespace: "${schema.spec.ns + '-x'}" },
          },
        },
        {
          id: "binding",
          template: {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRoleBinding",
            metadata: { name: "${schema.spec.name}" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
            subjects: [
              {
                kind: "ServiceAccount",
                name: "${schema.spec.sa}",
                namespace: scope ? "${schema.spec.ns}" : "${schema.metadata.namespace}",
              },
            ],
          },
        },
      ],
    },
  };
}

describe("namespace containment", () => {
  it("classifies namespaces as written", () => {
    assert.deepEqual(classifyMetadataValue(undefined), { kind: "instance" });
    assert.deepEqual(classifyMetadataValue(""), { kind: "instance" });
    assert.deepEqual(classifyMetadataValue("${schema.metadata.namespace}"), { kind: "instance" });
    assert.deepEqual(classifyMetadataValue("kube-system"), { kind: "constant", value: "kube-system" });
    assert.deepEqual(classifyMetadataValue("${schema.spec.target.ns}"), { kind: "spec", path: ["target", "ns"] });
    assert.deepEqual(classifyMetadataValue("${ schema.spec.ns }"), { kind: "spec", path: ["ns"] });
    assert.equal(classifyMetadataValue("${schema.spec.ns}-x").kind, "dynamic");
    assert.equal(classifyMetadataValue("${schema.spec.ns + 'x'}").kind, "dynamic");
    assert.equal(classifyMetadataValue("${schema.spec['ns']}").kind, "dynamic");
  });

  it("reads the RGD author's opt-ins from annotations", () => {
    assert.deepEqual(containmentPolicyOf({}), {
      allowCrossNamespace: false,
      allowClusterScoped: false,
      authorCheck: true,
      authorCheckExempt: [],
    });
    const policy = containmentPolicyOf({
      metadata: {
        annotations: {
          "kro.run/allow-cross-namespace": "True",
          "kro.run/allow-cluster-scoped": "true",
          "kro.run/author-check": "disabled",
          "kro.run/author-check-exempt": " a, b ,,",
        },
      },
    });
    assert.deepEqual(policy, {
      allowCrossNamespace: true,
      allowClusterScoped: true,
      authorCheck: false,
      authorCheckExempt: ["a", "b"],
    });
    assert.equal(
      containmentPolicyOf({ metadata: { annotations: { "kro.run/allow-cross-namespace": "yes" } } })
        .allowCrossNamespace,
      false,
    );
  });

  it("warns about instance-chosen namespaces and cluster-scoped children, with their paths", () => {
    const result = compileRgd(escalation(), { resolver, env });
    assert.ok(result.graph, JSON.stringify(result.issues));
    const found = result.issues
      .filter((i) => i.code.startsWith("containment."))
      .map((i) => `${i.severity} ${i.code} ${i.path.join(".")}`);
    assert.deepEqual(found, [
      "warning containment.cross-namespace-child spec.resources.3.template.metadata.namespace",
      "warning containment.cross-namespace-child spec.resources.4.template.metadata.namespace",
      "warning containment.cluster-scoped-child spec.resources.5.template.kind",
    ]);
  });

  it("says nothing once the RGD opts in, or for cluster-scoped instances", () => {
    const optedIn = compileRgd(
      escalation({ "kro.run/allow-cross-namespace": "true", "kro.run/allow-cluster-scoped": "true" }),
      { resolver, env },
    );
    assert.deepEqual(
      optedIn.issues.filter((i) => i.code.startsWith("containment.")),
      [],
    );
    const partly = compileRgd(escalation({ "kro.run/allow-cross-namespace": "true" }), { resolver, env });
    assert.deepEqual(
      partly.issues.filter((i) => i.code.startsWith("containment.")).map((i) => i.code),
      ["containment.cluster-scoped-child"],
    );
    const cluster = compileRgd(escalation({}, "Cluster"), { resolver, env });
    assert.ok(cluster.graph, JSON.stringify(cluster.issues));
    assert.deepEqual(
      cluster.issues.filter((i) => i.code.startsWith("containment.")),
      [],
    );
  });
});
