// The seed's walkthrough through the dialect-neutral core (evaluateInstance, buildInstanceStatus,
// prunePlan): what the controller would apply for my-nginx, and the status it would write.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { LABELS, loadYaml } from "../../api/index.js";
import { builtinSchemaResolver, compileRgd, type BuiltinSchemaBundle, type CompiledGraph } from "../../graph/index.js";
import { evaluateInstance } from "../evaluate.js";
import { createMemoryLookup, type MemoryLookup } from "../memory-lookup.js";
import { prunePlan } from "../prune.js";
import { buildInstanceStatus } from "../status.js";
import type { InstanceEvaluation, KubeJson } from "../types.js";

const root = new URL("../../../../", import.meta.url);
const read = (name: string): KubeJson => {
  const [doc] = loadYaml(name, readFileSync(new URL(`examples/nginx/${name}`, root), "utf8")).documents;
  assert.ok(doc);
  return doc.value as KubeJson;
};
const resolver = builtinSchemaResolver(
  JSON.parse(
    gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
  ) as BuiltinSchemaBundle,
);
const compiled = compileRgd(read("nginxapp-rgd.yaml"), { resolver });
assert.ok(compiled.graph);
const graph: CompiledGraph = compiled.graph;
const seed = read("my-nginx.yaml");
const instance: KubeJson = {
  ...seed,
  metadata: { name: "my-nginx", namespace: "default", uid: "uid-7", generation: 4 },
};
const NOW = "2026-01-01T00:00:00Z";

const names = (evaluation: InstanceEvaluation): string[] =>
  evaluation.apply.map((o) => `${String(o.kind)}/${String((o.metadata as KubeJson).name)}`);

/** The API server's part: applied objects come back with the status their controllers write. */
function applied(lookup: MemoryLookup, evaluation: InstanceEvaluation): void {
  lookup.put(
    ...evaluation.apply.map((o): KubeJson => {
      if (o.kind === "Deployment")
        return {
          ...o,
          status: {
            availableReplicas: 2,
            readyReplicas: 2,
            conditions: [
              {
                type: "Available",
                status: "True",
                reason: "MinimumReplicasAvailable",
                message: "Deployment has minimum availability.",
              },
            ],
          },
        };
      if (o.kind === "Service") return { ...o, spec: { ...(o.spec as KubeJson), clusterIP: "10.96.0.10" } };
      return o;
    }),
  );
}

describe("the seed's walkthrough through the runtime core", () => {
  it("applies Deployment, Service and Ingress, each labelled app=my-nginx and owned by the instance", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup());
    assert.equal(evaluation.error, undefined);
    assert.deepEqual(names(evaluation), ["Deployment/my-nginx", "Service/my-nginx", "Ingress/my-nginx"]);
    for (const object of evaluation.apply) {
      const metadata = object.metadata as { namespace: string; labels: Record<string, string> };
      assert.equal(metadata.namespace, "default");
      assert.equal(metadata.labels.app, "my-nginx");
      assert.equal(metadata.labels[LABELS.instanceId], "uid-7");
      assert.equal(metadata.labels[LABELS.instanceKind], "NginxApp");
      assert.equal(metadata.labels[LABELS.instanceGroup], "kro.example.com");
    }
    assert.deepEqual(
      evaluation.nodes.map((n) => n.state),
      ["IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS"],
    );
  });

  it("writes status.availableReplicas, readyReplicas, serviceIP, Ready mapped from Available, and state ACTIVE", () => {
    const lookup = createMemoryLookup();
    applied(lookup, evaluateInstance(graph, instance, lookup));
    const evaluation = evaluateInstance(graph, instance, lookup);
    assert.deepEqual(
      evaluation.nodes.map((n) => n.state),
      ["SYNCED", "SYNCED", "SYNCED"],
    );
    const status = buildInstanceStatus(graph, instance, evaluation, { now: NOW });
    const { conditions, ...fields } = status;
    assert.deepEqual(fields, {
      availableReplicas: 2,
      readyReplicas: 2,
      serviceIP: "10.96.0.10",
      observedGeneration: 4,
      state: "ACTIVE",
    });
    const byType = new Map((conditions as KubeJson[]).map((c) => [c.type, c]));
    assert.deepEqual(byType.get("Ready"), {
      type: "Ready",
      status: "True",
      reason: "MinimumReplicasAvailable",
      message: "Deployment has minimum availability.",
      lastTransitionTime: NOW,
      observedGeneration: 4,
    });
    assert.equal(byType.get("ResourcesReady")?.status, "True");
    assert.equal(
      (conditions as KubeJson[]).filter((c) => c.type === "Ready").length,
      1,
      "the mapped Ready replaces the built-in one",
    );
  });

  it("keeps Ready Unknown (ChildConditionMissing) while the Deployment reports no Available condition", () => {
    const lookup = createMemoryLookup();
    lookup.put(...evaluateInstance(graph, instance, lookup).apply);
    const status = buildInstanceStatus(graph, instance, evaluateInstance(graph, instance, lookup), { now: NOW });
    const ready = (status.conditions as KubeJson[]).find((c) => c.type === "Ready");
    assert.deepEqual([ready?.status, ready?.reason], ["Unknown", "ChildConditionMissing"]);
    assert.equal(status.availableReplicas, undefined);
  });

  it("editing spec.replicas changes the desired Deployment", () => {
    const scaled = { ...instance, spec: { ...(instance.spec as KubeJson), replicas: 5 } };
    const [deployment] = evaluateInstance(graph, scaled, createMemoryLookup()).apply;
    assert.equal((deployment?.spec as KubeJson).replicas, 5);
  });

  it("ingress.enabled: false excludes the Ingress and prunes the one that exists", () => {
    const lookup = createMemoryLookup();
    applied(lookup, evaluateInstance(graph, instance, lookup));
    const disabled = { ...instance, spec: { ...(instance.spec as KubeJson), ingress: { enabled: false } } };
    const evaluation = evaluateInstance(graph, disabled, lookup);
    assert.deepEqual(
      evaluation.nodes.map((n) => [n.id, n.state]),
      [
        ["deployment", "SYNCED"],
        ["service", "SYNCED"],
        ["ingress", "SKIPPED"],
      ],
    );
    assert.deepEqual(names(evaluation), ["Deployment/my-nginx", "Service/my-nginx"]);
    const inventory = ["Deployment", "Service", "Ingress"].map((kind, i) => ({
      apiVersion: ["apps/v1", "v1", "networking.k8s.io/v1"][i] ?? "",
      kind,
      namespace: "default",
      name: "my-nginx",
      uid: `u${i}`,
      nodeId: kind.toLowerCase(),
    }));
    assert.deepEqual(
      prunePlan(graph, inventory, evaluation)
        .flat()
        .map((e) => e.kind),
      ["Ingress"],
    );
  });

  it("a condition rendering something other than true/false is an instance error naming the child", () => {
    const odd = { ...instance, spec: { ...(instance.spec as KubeJson), ingress: { enabled: "sometimes" } } };
    const evaluation = evaluateInstance(graph, odd, createMemoryLookup());
    assert.match(
      evaluation.error ?? "",
      /^child "ingress": condition rendered "sometimes"; it must render true or false/,
    );
    assert.deepEqual(evaluation.apply, []);
    const status = buildInstanceStatus(graph, odd, evaluation, { now: NOW });
    assert.equal(status.state, "ERROR");
  });
});

describe("template dialect: .children dependencies through the core", () => {
  const chained = compileRgd(
    {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "chain" },
      spec: {
        resourceKind: { group: "example.com", version: "v1", kind: "App" },
        childResources: [
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            id: "config",
            nameTemplate: "{{.parent.metadata.name}}-config",
            template: "data:\n  ip: {{ .children.svc.spec.clusterIP | quote }}\n",
          },
          {
            apiVersion: "v1",
            kind: "Service",
            id: "svc",
            nameTemplate: "{{.parent.metadata.name}}",
            template: "spec:\n  ports: [{port: 80}]\n",
            readyWhen: ['{{ ne (.self.spec.clusterIP | default "") "" }}'],
          },
        ],
      },
    },
    { resolver },
  );
  assert.ok(chained.graph);
  const graphWithDeps = chained.graph;
  const app: KubeJson = {
    apiVersion: "example.com/v1",
    kind: "App",
    metadata: { name: "a", namespace: "ns", uid: "u" },
    spec: {},
  };

  it("renders the reader only once the service is observed and ready", () => {
    const lookup = createMemoryLookup();
    const first = evaluateInstance(graphWithDeps, app, lookup);
    assert.deepEqual(graphWithDeps.topologicalOrder, ["svc", "config"]);
    assert.deepEqual(names(first), ["Service/a"]);
    assert.deepEqual(
      first.nodes.map((n) => [n.id, n.pending?.kind]),
      [
        ["svc", "readiness"],
        ["config", "dependency-not-ready"],
      ],
    );
    lookup.put(...first.apply);
    const notReady = evaluateInstance(graphWithDeps, app, lookup);
    assert.deepEqual(
      notReady.nodes.map((n) => [n.id, n.state]),
      [
        ["svc", "WAITING_FOR_READINESS"],
        ["config", "IN_PROGRESS"],
      ],
    );
    lookup.put(...first.apply.map((o) => ({ ...o, spec: { ...(o.spec as KubeJson), clusterIP: "10.0.0.9" } })));
    const done = evaluateInstance(graphWithDeps, app, lookup);
    assert.deepEqual(names(done), ["Service/a", "ConfigMap/a-config"]);
    assert.deepEqual(done.apply[1]?.data, { ip: "10.0.0.9" });
  });
});
