import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createKroCelEnvironment } from "../expr/index.js";
import { childFieldMasks } from "./child-field-masks.js";
import { compileRgd } from "./compile.js";
import type { CompiledGraph } from "./compiled-graph.js";
import { describeMask } from "./field-mask.js";

const env = createKroCelEnvironment({ enableRuntime: true });

function graphOf(resources: unknown[], status: Record<string, string> = {}): CompiledGraph {
  const rgd = {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "masks" },
    spec: {
      schema: { apiVersion: "v1alpha1", kind: "MaskApp", spec: { name: "string", keys: "[]string" }, status },
      resources,
    },
  };
  const { graph, issues } = compileRgd(rgd, { env });
  assert.ok(graph, JSON.stringify(issues));
  return graph;
}

const masksOf = (graph: CompiledGraph) =>
  Object.fromEntries([...childFieldMasks(graph, env)].map(([id, m]) => [id, describeMask(m)]));

const service = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "${schema.spec.name}" },
  spec: { ports: [{ port: 80 }] },
};

describe("childFieldMasks", () => {
  it("keeps a managed child's template shape and every path an expression reads", () => {
    const graph = graphOf(
      [
        { id: "svc", readyWhen: ["${svc.spec.clusterIP != ''}"], template: service },
        {
          id: "cm",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "x" },
            data: { ip: "${svc.spec.clusterIP}", v: "${string(svc.metadata.?annotations['a'].orValue(''))}" },
          },
        },
      ],
      { port: "${svc.spec.ports[0].port}", uid: "${cm.metadata.uid}" },
    );
    assert.deepEqual(masksOf(graph), {
      svc: {
        apiVersion: true,
        kind: true,
        metadata: { annotations: { a: true }, name: true },
        spec: { clusterIP: true, ports: true },
      },
      cm: { apiVersion: true, data: { ip: true, v: true }, kind: true, metadata: { name: true, uid: true } },
    });
  });

  it("keeps the whole object when an expression uses it as a value", () => {
    const graph = graphOf([
      { id: "svc", template: service },
      {
        id: "cm",
        template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { all: "${string(svc)}" } },
      },
    ]);
    assert.equal(masksOf(graph).svc, true);
  });

  it("keeps the subtree where the access stops being a plain field (index, macro)", () => {
    const graph = graphOf([
      { id: "svc", template: service },
      {
        id: "cm",
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "x" },
          data: { n: "${svc.status.loadBalancer.ingress.map(i, i.ip).join(',')}" },
        },
      },
    ]);
    assert.deepEqual((masksOf(graph).svc as Record<string, unknown>).status, { loadBalancer: { ingress: true } });
  });

  it("reads `each` of a collection's readyWhen as the collection's item", () => {
    const graph = graphOf([
      {
        id: "cms",
        forEach: [{ key: "${schema.spec.keys}" }],
        readyWhen: ["${each.metadata.uid != ''}"],
        template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${key}" } },
      },
    ]);
    assert.deepEqual(masksOf(graph).cms, { apiVersion: true, kind: true, metadata: { name: true, uid: true } });
  });

  it("keeps a Secret's data when the template writes stringData (the server stores it there)", () => {
    const graph = graphOf([
      {
        id: "s",
        template: {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "x" },
          stringData: { t: "${schema.spec.name}" },
        },
      },
    ]);
    assert.deepEqual(masksOf(graph).s, {
      apiVersion: true,
      data: true,
      kind: true,
      metadata: { name: true },
      stringData: { t: true },
    });
  });

  it("keeps a field set by an expression whole (it may render any object)", () => {
    const graph = graphOf([
      {
        id: "cm",
        template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", labels: "${schema.metadata.labels}" } },
      },
    ]);
    assert.deepEqual(masksOf(graph).cm, { apiVersion: true, kind: true, metadata: { labels: true, name: true } });
  });
});
