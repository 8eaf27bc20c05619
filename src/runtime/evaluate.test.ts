import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS, LABELS } from "../api/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { compileRgd } from "../graph/index.js";
import { evaluateInstance } from "./evaluate.js";
import { buildInstanceStatus } from "./status.js";
import { compileFixture, compileValue, dig, instanceOf, rgdFixture } from "../../test/unit-support/runtime/fixtures.js";
import { createMemoryLookup } from "./memory-lookup.js";
import type { InstanceEvaluation, KubeJson, NodeEvaluation } from "./types.js";

const webapp = compileFixture("webapp");

function node(evaluation: InstanceEvaluation, id: string): NodeEvaluation {
  const found = evaluation.nodes.find((n) => n.id === id);
  assert.ok(found, `node ${id}`);
  return found;
}

/** Applies like the controller would: desired objects become observed, with a status patch. */
function converge(
  graph: Parameters<typeof evaluateInstance>[0],
  instance: KubeJson,
  status: (o: KubeJson) => KubeJson | undefined = () => undefined,
  passes = 6,
): InstanceEvaluation {
  const lookup = createMemoryLookup();
  let evaluation = evaluateInstance(graph, instance, lookup);
  for (let i = 0; i < passes; i++) {
    const s = (o: KubeJson) => status(o);
    lookup.put(
      ...evaluation.apply.map((o) => {
        const st = s(o);
        return st === undefined ? o : { ...o, status: st };
      }),
    );
    evaluation = evaluateInstance(graph, instance, lookup);
  }
  return evaluation;
}

describe("evaluateInstance: the worked example (docs/reference/kro-reference.md §2.7)", () => {
  const instance = instanceOf(webapp, {
    name: "shop",
    replicas: 3,
    regions: ["eu", "us"],
    ingress: { enabled: false },
  });

  it("first pass: applies deploy and the forEach items; svc waits on deploy; ing is excluded", () => {
    const evaluation = evaluateInstance(webapp, instance, createMemoryLookup());
    assert.deepEqual(
      evaluation.nodes.map((n) => [n.id, n.state]),
      [
        ["deploy", "IN_PROGRESS"],
        ["svc", "IN_PROGRESS"],
        ["ing", "SKIPPED"],
        ["cms", "IN_PROGRESS"],
      ],
    );
    assert.deepEqual(node(evaluation, "svc").pending?.waitingOn, ["deploy"]);
    assert.equal(node(evaluation, "svc").pending?.kind, "dependency-not-ready");
    assert.equal(node(evaluation, "ing").excluded, true);
    assert.equal(evaluation.pending, true);
    assert.deepEqual(
      evaluation.apply.map((o) => `${String(o.kind)}/${String(dig(o, "metadata", "name"))}`),
      ["Deployment/shop", "ConfigMap/shop-eu", "ConfigMap/shop-us"],
    );
    assert.equal(dig(evaluation.apply[0], "spec", "replicas"), 3);
  });

  it("decorates children with kro's labels, the apply-order wave and the instance namespace", () => {
    const [deploy, cm] = evaluateInstance(webapp, instance, createMemoryLookup()).apply;
    assert.deepEqual(dig(deploy, "metadata", "labels"), {
      [LABELS.owned]: "true",
      [LABELS.kroVersion]: "dev",
      [LABELS.instanceId]: "uid-1",
      [LABELS.instanceName]: "demo",
      [LABELS.instanceNamespace]: "team",
      [LABELS.instanceGroup]: "kro.run",
      [LABELS.instanceVersion]: "v1alpha1",
      [LABELS.instanceKind]: "WebApp",
      [LABELS.managedBy]: "kro",
      [LABELS.nodeId]: "deploy",
    });
    assert.equal(dig(deploy, "metadata", "annotations", ANNOTATIONS.applyOrder), "1");
    assert.equal(dig(deploy, "metadata", "namespace"), "team");
    assert.equal(dig(cm, "metadata", "labels", LABELS.collectionIndex), "0");
    assert.equal(dig(cm, "metadata", "labels", LABELS.collectionSize), "2");
    assert.equal(dig(cm, "metadata", "annotations", ANNOTATIONS.applyOrder), "3");
    assert.equal(dig(deploy, "metadata", "labels", LABELS.applysetPartOf), undefined);
  });

  it("the kro version label comes from the options", () => {
    const [deploy] = evaluateInstance(webapp, instance, createMemoryLookup(), { kroVersion: "0.9.3" }).apply;
    assert.equal(dig(deploy, "metadata", "labels", LABELS.kroVersion), "0.9.3");
  });

  it("a dependency observed but not ready (readyWhen false) keeps its dependents waiting", () => {
    const evaluation = converge(webapp, instance, (o) =>
      o.kind === "Deployment" ? { availableReplicas: 0 } : undefined,
    );
    assert.equal(node(evaluation, "deploy").state, "WAITING_FOR_READINESS");
    assert.equal(node(evaluation, "deploy").pending?.kind, "readiness");
    assert.equal(node(evaluation, "svc").state, "IN_PROGRESS");
  });

  it("once deploy is ready the chain converges: svc renders from the observed deploy", () => {
    const evaluation = converge(
      webapp,
      { ...instance, spec: { ...(instance.spec as KubeJson), ingress: { enabled: true } } },
      (o) => (o.kind === "Deployment" ? { availableReplicas: 1 } : undefined),
    );
    assert.deepEqual(
      evaluation.nodes.map((n) => n.state),
      ["SYNCED", "SYNCED", "SYNCED", "SYNCED"],
    );
    assert.equal(evaluation.pending, false);
    assert.equal(evaluation.error, undefined);
    const ing = evaluation.apply.find((o) => o.kind === "Ingress");
    assert.equal(dig(ing, "spec", "rules", 0, "http", "paths", 0, "backend", "service", "name"), "shop");
    assert.deepEqual(evaluation.watches.length, 4);
  });

  it("an empty forEach dimension means zero items and a ready collection", () => {
    const evaluation = converge(
      webapp,
      { ...instance, spec: { name: "shop", replicas: 1, regions: [], ingress: { enabled: false } } },
      () => undefined,
      1,
    );
    assert.equal(node(evaluation, "cms").state, "SYNCED");
    assert.equal(node(evaluation, "cms").ready, true);
    assert.deepEqual(node(evaluation, "cms").desired, []);
  });

  it("a live child that is being deleted blocks the whole pass (nothing applied)", () => {
    const lookup = createMemoryLookup();
    const [deploy] = evaluateInstance(webapp, instance, lookup).apply;
    assert.ok(deploy);
    lookup.put({
      ...deploy,
      metadata: { ...(deploy.metadata as KubeJson), deletionTimestamp: "2026-01-01T00:00:00Z" },
    });
    const evaluation = evaluateInstance(webapp, instance, lookup);
    assert.equal(node(evaluation, "deploy").state, "DELETING");
    assert.equal(node(evaluation, "deploy").pending?.kind, "terminating");
    assert.deepEqual(evaluation.apply, []);
    assert.equal(evaluation.pending, true);
  });
});

describe("includeWhen: exclusion spreads to every transitive dependent", () => {
  const graph = compileFixture("includewhen-chain");

  it("excluded node, its dependents and their dependents are SKIPPED; independent nodes stay", () => {
    const evaluation = evaluateInstance(graph, instanceOf(graph, { name: "x", cache: false }), createMemoryLookup());
    assert.deepEqual(
      evaluation.nodes.map((n) => [n.id, n.state, n.excluded]),
      [
        ["cache", "SKIPPED", true],
        ["cacheUser", "SKIPPED", true],
        ["cacheUserUser", "SKIPPED", true],
        ["audit", "IN_PROGRESS", false],
      ],
    );
    assert.equal(evaluation.pending, false, "excluded nodes are not pending");
    assert.deepEqual(
      evaluation.apply.map((o) => dig(o, "metadata", "name")),
      ["x-audit"],
    );
  });

  it("included: the chain renders pass by pass", () => {
    const evaluation = converge(compileFixture("includewhen-chain"), instanceOf(graph, { name: "x", cache: true }));
    // apply order: wave, then topological order (audit has no dependents: the last wave)
    assert.deepEqual(
      evaluation.apply.map((o) => dig(o, "metadata", "name")),
      ["x-cache", "x-cache-user", "x-cache-user-user", "x-audit"],
    );
    assert.deepEqual(
      evaluation.nodes.map((n) => n.state),
      ["SYNCED", "SYNCED", "SYNCED", "SYNCED"],
    );
  });

  it("an includeWhen reading a resource waits for it to be ready", () => {
    const rgd = rgdFixture("includewhen-chain") as { spec: { resources: KubeJson[] } };
    const copy = structuredClone(rgd);
    const [, cacheUser] = copy.spec.resources;
    assert.ok(cacheUser);
    cacheUser.includeWhen = ["${audit.metadata.name != ''}"];
    copy.spec.resources[0] = { ...copy.spec.resources[0], includeWhen: ["${true}"] };
    const g = compileValue(copy);
    const first = evaluateInstance(g, instanceOf(g, { name: "x" }), createMemoryLookup());
    assert.equal(node(first, "cacheUser").pending?.kind, "dependency-not-ready");
    assert.deepEqual(node(first, "cacheUser").pending?.waitingOn, ["cache", "audit"]);
  });
});

describe("forEach: cartesian product, limits, duplicate identities", () => {
  const graph = compileFixture("foreach-2d");
  const instance = instanceOf(graph, { name: "g", regions: ["eu", "us"], tiers: ["web", "db"] });

  it("expands the product with the first dimension outermost", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup());
    const cells = node(evaluation, "cells");
    assert.deepEqual(
      cells.desired.map((o) => dig(o, "metadata", "name")),
      ["g-eu-web", "g-eu-db", "g-us-web", "g-us-db"],
    );
    assert.deepEqual(
      cells.desired.map((o) => dig(o, "metadata", "labels", LABELS.collectionIndex)),
      ["0", "1", "2", "3"],
    );
    assert.deepEqual(
      cells.desired.map((o) => dig(o, "data")),
      [
        { region: "eu", tier: "web" },
        { region: "eu", tier: "db" },
        { region: "us", tier: "web" },
        { region: "us", tier: "db" },
      ],
    );
  });

  it("a collection is ready only when every item is observed and passes readyWhen (each)", () => {
    const lookup = createMemoryLookup();
    const [first, ...rest] = node(evaluateInstance(graph, instance, lookup), "cells").desired;
    assert.ok(first);
    lookup.put({ ...first, data: { ...(first.data as KubeJson), ready: "yes" } });
    const partly = evaluateInstance(graph, instance, lookup);
    assert.equal(node(partly, "cells").ready, false);
    assert.equal(node(partly, "cells").observed.length, 1);
    assert.equal(node(partly, "summary").pending?.kind, "dependency-not-ready");
    lookup.put(...rest.map((o) => ({ ...o, data: { ...(o.data as KubeJson), ready: "yes" } })));
    const all = evaluateInstance(graph, instance, lookup);
    assert.equal(node(all, "cells").state, "SYNCED");
    assert.equal(dig(node(all, "summary").desired[0], "data", "cells"), "4");
  });

  it("items not passing readyWhen keep the collection WAITING_FOR_READINESS", () => {
    const lookup = createMemoryLookup();
    lookup.put(...node(evaluateInstance(graph, instance, lookup), "cells").desired);
    const evaluation = evaluateInstance(graph, instance, lookup);
    assert.equal(node(evaluation, "cells").state, "WAITING_FOR_READINESS");
    // stale observed items (forEach shrank) do not count: only items matching desired ones
    assert.equal(node(evaluation, "cells").observed.length, 4);
  });

  it("assumeReady treats observed items as ready without evaluating readyWhen", () => {
    const lookup = createMemoryLookup();
    lookup.put(...node(evaluateInstance(graph, instance, lookup), "cells").desired);
    assert.equal(node(evaluateInstance(graph, instance, lookup, { assumeReady: true }), "cells").state, "SYNCED");
  });

  it("more items than --rgd-max-collection-size is an error and nothing is applied", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup(), { maxCollectionSize: 3 });
    assert.equal(node(evaluation, "cells").state, "ERROR");
    assert.match(
      evaluation.error ?? "",
      /spec\.resources\[0\]\.forEach: forEach produces 4 items \(region: 2 × tier: 2\); the limit is 3/,
    );
    assert.deepEqual(evaluation.apply, []);
  });

  it("two items with the same identity are an error", () => {
    const evaluation = evaluateInstance(
      graph,
      instanceOf(graph, { name: "g", regions: ["eu", "eu"], tiers: ["web"] }),
      createMemoryLookup(),
    );
    assert.match(evaluation.error ?? "", /forEach items 0 and 1 both render ConfigMap team\/g-eu-web/);
  });
});

describe("data pending versus real errors", () => {
  const base = rgdFixture("webapp") as { spec: { resources: { template: KubeJson }[] } };
  function withSvcPort(expression: string) {
    const copy = structuredClone(base);
    const [, svc] = copy.spec.resources;
    assert.ok(svc);
    svc.template = {
      ...svc.template,
      metadata: { name: "${deploy.metadata.name}", annotations: { note: expression } },
    };
    return compileValue(copy);
  }
  const ready = (o: KubeJson) => (o.kind === "Deployment" ? { availableReplicas: 1 } : undefined);
  const instance = (g: Parameters<typeof instanceOf>[0]) =>
    instanceOf(g, { name: "shop", replicas: 1, regions: [], ingress: { enabled: false } });

  it("a missing field on an observed dependency means wait, naming the missing path", () => {
    const graph = withSvcPort("${deploy.status.conditions[0].message}");
    const evaluation = converge(graph, instance(graph), ready);
    const svc = node(evaluation, "svc");
    assert.equal(svc.state, "IN_PROGRESS");
    const pending = svc.pending;
    assert.ok(pending);
    assert.equal(pending.kind, "data-pending");
    assert.equal(pending.missingPath, "deploy.status.conditions");
    assert.match(
      pending.message,
      /^spec\.resources\[1\]\.template\.metadata\.annotations\.note: waiting for deploy\.status\.conditions/,
    );
    assert.equal(evaluation.error, undefined);
    assert.equal(evaluation.pending, true);
    assert.ok(
      evaluation.apply.some((o) => o.kind === "Deployment"),
      "other resources keep going",
    );
  });

  it("a bad conversion is an error that stops the whole pass", () => {
    const graph = withSvcPort("${string(int(deploy.metadata.name))}");
    const evaluation = converge(graph, instance(graph), ready);
    assert.equal(node(evaluation, "svc").state, "ERROR");
    assert.match(
      evaluation.error ?? "",
      /^spec\.resources\[1\]\.template\.metadata\.annotations\.note: expression "string\(int\(deploy\.metadata\.name\)\)"/,
    );
    assert.deepEqual(evaluation.apply, []);
  });
});

describe("namespaces", () => {
  it("a cluster-scoped instance with a namespaced child resolving an empty namespace is an error", () => {
    const graph = compileValue({
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "cs" },
      spec: {
        schema: { apiVersion: "v1alpha1", kind: "Tenant", scope: "Cluster", spec: { ns: 'string | default=""' } },
        resources: [
          {
            id: "cm",
            template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "${schema.spec.ns}" } },
          },
        ],
      },
    });
    const instance = {
      apiVersion: "kro.run/v1alpha1",
      kind: "Tenant",
      metadata: { name: "t", uid: "u" },
      spec: { ns: "" },
    };
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup());
    assert.match(
      evaluation.error ?? "",
      /resource "cm": metadata\.namespace resolved to an empty value; ConfigMap is namespaced and the instance is cluster-scoped/,
    );
    const ok = evaluateInstance(graph, { ...instance, spec: { ns: "prod" } }, createMemoryLookup());
    assert.equal(dig(ok.apply[0], "metadata", "namespace"), "prod");
    assert.equal(dig(ok.apply[0], "metadata", "labels", LABELS.instanceNamespace), undefined);
  });
});

describe("external references", () => {
  const graph = compileFixture("external-refs");
  const instance = instanceOf(graph, { name: "blue", source: "shared" });
  const settings = (ready: string): KubeJson => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "shared", namespace: "team" },
    data: { color: "blue", ready },
  });
  const secret = (name: string, ns: string, team: string): KubeJson => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: ns, labels: { team } },
  });

  it("a missing external is WAITING_FOR_READINESS, not an error; dependents wait", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup());
    assert.equal(node(evaluation, "settings").state, "WAITING_FOR_READINESS");
    assert.equal(node(evaluation, "settings").pending?.kind, "not-found");
    assert.match(node(evaluation, "settings").pending?.message ?? "", /ConfigMap team\/shared \(v1\) not found/);
    assert.equal(node(evaluation, "app").pending?.kind, "dependency-not-ready");
    assert.equal(evaluation.error, undefined);
    assert.deepEqual(evaluation.watches[0], { apiVersion: "v1", kind: "ConfigMap", name: "shared", namespace: "team" });
  });

  it("externals are never applied; readyWhen gates dependents; collections list by selector in all namespaces", () => {
    const lookup = createMemoryLookup([
      settings("false"),
      secret("b", "other", "blue"),
      secret("a", "team", "blue"),
      secret("c", "team", "red"),
    ]);
    const notReady = evaluateInstance(graph, instance, lookup);
    assert.equal(node(notReady, "settings").state, "WAITING_FOR_READINESS");
    assert.equal(node(notReady, "creds").state, "SYNCED");
    assert.deepEqual(
      node(notReady, "creds")
        .observed.map((o) => dig(o, "metadata", "name"))
        .sort(),
      ["a", "b"],
    );
    lookup.put(settings("true"));
    const evaluation = evaluateInstance(graph, instance, lookup);
    assert.deepEqual(
      evaluation.apply.map((o) => dig(o, "metadata", "name")),
      ["blue-app"],
    );
    const [app] = evaluation.apply;
    assert.equal(dig(app, "data", "color"), "blue");
    assert.deepEqual(
      String(dig(app, "data", "secrets"))
        .split(",")
        .sort(),
      ["a", "b"],
    );
    assert.deepEqual(node(evaluation, "settings").desired, []);
    assert.deepEqual(evaluation.watches[1], { apiVersion: "v1", kind: "Secret", matchLabels: { team: "blue" } });
  });
});

describe("omit() and status arrays", () => {
  it("omit() removes a key or a list element from the rendered object", () => {
    // omit() passes the compiler only behind its feature gate (CELOmitFunction).
    const compiled = compileRgd(
      {
        apiVersion: "kro.run/v1alpha1",
        kind: "ResourceGraphDefinition",
        metadata: { name: "o" },
        spec: {
          schema: {
            apiVersion: "v1alpha1",
            kind: "Omitting",
            spec: { note: 'string | default=""' },
            status: { names: ["${cm.metadata.name}", "${cm.data.?x.orValue('none')}"] },
          },
          resources: [
            {
              id: "cm",
              template: {
                apiVersion: "v1",
                kind: "ConfigMap",
                metadata: { name: "o", annotations: { note: "${schema.spec.note == '' ? omit() : schema.spec.note}" } },
                data: { a: "1", b: "${schema.spec.note == '' ? omit() : 'x'}" },
              },
            },
          ],
        },
      },
      { env: createKroCelEnvironment({ enableRuntime: true, enableOmit: true }) },
    );
    const graph = compiled.graph;
    assert.ok(graph, JSON.stringify(compiled.issues));
    const [cm] = evaluateInstance(graph, instanceOf(graph, { note: "" }), createMemoryLookup()).apply;
    assert.deepEqual(dig(cm, "metadata", "annotations"), { [ANNOTATIONS.applyOrder]: "1" });
    assert.deepEqual(dig(cm, "data"), { a: "1" });
    const [kept] = evaluateInstance(graph, instanceOf(graph, { note: "hi" }), createMemoryLookup()).apply;
    assert.deepEqual(dig(kept, "data"), { a: "1", b: "x" });
  });

  it("status arrays are written as arrays where the CRD's status schema says array; a pending element is left out", () => {
    const compiled = compileValue({
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "arr" },
      spec: {
        schema: {
          apiVersion: "v1alpha1",
          kind: "Arrays",
          spec: { n: "string | default=a" },
          status: { names: ["${cm.metadata.name}", "${cm.data.missing}", "${cm.metadata.name + '-' + schema.spec.n}"] },
        },
        resources: [{ id: "cm", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "arr" } } }],
      },
    });
    // kro's field paths make `names` an array of strings in the CRD (field_descriptor.go).
    const graph = compiled;
    assert.deepEqual(graph.crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.status?.properties?.names, {
      type: "array",
      items: { type: "string" },
    });
    const instance = instanceOf(graph, { n: "a" });
    const lookup = createMemoryLookup();
    lookup.put(...evaluateInstance(graph, instance, lookup).apply);
    const status = buildInstanceStatus(graph, instance, evaluateInstance(graph, instance, lookup), {
      now: "2026-01-01T00:00:00Z",
    });
    assert.deepEqual(status.names, ["arr", "arr-a"]);
  });
});
