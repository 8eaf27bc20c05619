import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import { evaluateInstance } from "../evaluate.js";
import { identityOf } from "../identity.js";
import { createMemoryLookup } from "../memory-lookup.js";
import { prunePlan } from "../prune.js";
import type { InventoryEntry, KubeJson } from "../types.js";
import { ADOPTED_RELEASE_ANNOTATION, completedHookRuns, HOOK_RUNS_ANNOTATION, hookRuns, runName } from "./hook-runs.js";

const job = (name: string, hook: string, deletePolicy?: string) =>
  [
    "---",
    "apiVersion: batch/v1",
    "kind: Job",
    "metadata:",
    `  name: {{ .Release.Name }}-${name}`,
    "  annotations:",
    `    helm.sh/hook: ${hook}`,
    ...(deletePolicy === undefined ? [] : [`    helm.sh/hook-delete-policy: ${deletePolicy}`]),
    "spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: 'busybox:{{ .Values.tag }}'}]}}}",
  ].join("\n");
const HOOKS = [
  job("both", "pre-install,pre-upgrade"),
  job("install", "pre-install", "before-hook-creation,hook-succeeded"),
  job("upgrade", "pre-upgrade"),
].join("\n");
const SEED =
  "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-seed\n  annotations: {helm.sh/hook: pre-install}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  annotations: {helm.sh/hook: pre-upgrade}\ndata: {tag: '{{ .Values.tag }}'}\n";
const APP =
  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-app\ndata: {tag: '{{ .Values.tag }}'}\n";

function graph(): CompiledGraph {
  const result = compileRgd({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "g" },
    spec: {
      resourceKind: { group: "t.example.com", version: "v1", kind: "HApp" },
      helm: {
        templates: { "h/templates/hooks.yaml": HOOKS, "h/templates/seed.yaml": SEED, "h/templates/app.yaml": APP },
        charts: [{ templatePrefix: "h/", valuesPath: [], metadata: { name: "h", version: "1.0.0" }, files: {} }],
      },
      childResources: [
        {
          id: "hooks",
          apiVersion: "batch/v1",
          kind: "Job",
          manifests: "h/templates/hooks.yaml",
          readyWhen: ["{{- if (.self.status | default dict).succeeded -}}true{{- else -}}false{{- end -}}"],
        },
        { id: "seed", apiVersion: "v1", kind: "Secret", manifests: "h/templates/seed.yaml" },
        { id: "cfg", apiVersion: "v1", kind: "ConfigMap", manifests: "h/templates/seed.yaml" },
        {
          id: "app",
          apiVersion: "v1",
          kind: "ConfigMap",
          manifests: "h/templates/app.yaml",
          dependsOn: ["hooks", "seed", "cfg"],
        },
      ],
    },
  });
  assert.ok(result.graph, JSON.stringify(result.issues));
  return result.graph;
}

const instance = (generation: number | undefined, annotations: Record<string, string> = {}): KubeJson => ({
  apiVersion: "t.example.com/v1",
  kind: "HApp",
  metadata: {
    name: "rel",
    namespace: "ns",
    uid: "u1",
    annotations,
    ...(generation === undefined ? {} : { generation }),
  },
  spec: { tag: `v${generation ?? 0}` },
});
const names = (objects: readonly KubeJson[]) =>
  objects.map((o) => `${String(o.kind)}/${(o.metadata as { name: string }).name}`).sort();
const inventoryOf = (objects: readonly KubeJson[]): InventoryEntry[] =>
  objects.flatMap((o, i) => {
    const identity = identityOf(o);
    return identity === undefined
      ? []
      : [
          {
            ...identity,
            uid: `u${i}`,
            nodeId: (o.metadata as { labels: Record<string, string> }).labels["kro.run/node-id"] ?? "",
          },
        ];
  });

/** Passes until nothing new is applied, with every applied object observed and ready. */
function converge(g: CompiledGraph, subject: KubeJson, seen: readonly KubeJson[] = []) {
  const lookup = createMemoryLookup(seen);
  let evaluation = evaluateInstance(g, subject, lookup, { assumeReady: true });
  for (let i = 0; i < 4; i++) {
    lookup.put(...evaluation.apply);
    evaluation = evaluateInstance(g, subject, lookup, { assumeReady: true });
  }
  return evaluation;
}

describe("Helm hooks per instance generation (install = 1, each spec change an upgrade)", () => {
  const g = graph();

  it("offline (no generation) renders every hook, as helm template does", () => {
    const evaluation = converge(g, instance(undefined));
    assert.deepEqual(names(evaluation.apply), [
      "ConfigMap/rel-app",
      "ConfigMap/rel-cfg",
      "Job/rel-both",
      "Job/rel-install",
      "Job/rel-upgrade",
      "Secret/rel-seed",
    ]);
  });

  it("generation 1 (install) runs install hooks only, under Helm's names", () => {
    const evaluation = converge(g, instance(1));
    assert.deepEqual(names(evaluation.apply), [
      "ConfigMap/rel-app",
      "Job/rel-both",
      "Job/rel-install",
      "Secret/rel-seed",
    ]);
  });

  it("a later generation re-runs upgrade Jobs under a new name, keeps install hooks untouched, prunes the previous run", () => {
    const install = converge(g, instance(1));
    const inventory = inventoryOf(install.apply);
    const upgrade = converge(g, instance(3), install.apply);
    assert.deepEqual(names(upgrade.apply), [
      "ConfigMap/rel-app",
      "ConfigMap/rel-cfg",
      "Job/rel-both-3",
      "Job/rel-upgrade-3",
    ]);
    assert.deepEqual(
      upgrade.nodes
        .flatMap((n) => n.retained ?? [])
        .map((i) => `${i.kind}/${i.name}`)
        .sort(),
      ["Job/rel-install", "Secret/rel-seed"],
    );
    assert.deepEqual(
      prunePlan(g, inventory, upgrade)
        .flat()
        .map((e) => `${e.kind}/${e.name}`),
      ["Job/rel-both"],
    );
  });

  it("dependents wait for the new run to be ready (Helm waits for pre-upgrade hooks)", () => {
    const install = converge(g, instance(1));
    const lookup = createMemoryLookup(install.apply);
    const upgrade = evaluateInstance(g, instance(2), lookup, { assumeReady: true });
    assert.equal(upgrade.nodes.find((n) => n.id === "app")?.pending?.kind, "dependency-not-ready");
    assert.ok(!names(upgrade.apply).includes("ConfigMap/rel-app"));
  });

  it("an adopted release ran its install hooks under Helm: none is created at generation 1", () => {
    const adopted = instance(1, { [ADOPTED_RELEASE_ANNOTATION]: "7" });
    assert.deepEqual(names(converge(g, adopted).apply), ["ConfigMap/rel-app"]);
    assert.deepEqual(
      names(converge(g, { ...adopted, metadata: { ...(adopted.metadata as object), generation: 2 } }).apply),
      ["ConfigMap/rel-app", "ConfigMap/rel-cfg", "Job/rel-both-2", "Job/rel-upgrade-2"],
    );
  });

  it("run names stay DNS labels", () => {
    assert.equal(runName("a".repeat(63), 12).length, 63);
    assert.equal(runName(`${"a".repeat(59)}-bbbb`, 100), `${"a".repeat(59)}-100`);
    assert.deepEqual(
      hookRuns([{ kind: "Job", metadata: { name: "x" } }], instance(5)).apply,
      [{ kind: "Job", metadata: { name: "x" } }],
      "not a hook: as rendered",
    );
  });

  describe("a run recorded complete runs once per generation", () => {
    const without = (objects: readonly KubeJson[], ...gone: string[]) =>
      objects.filter((o) => !gone.includes(`${String(o.kind)}/${(o.metadata as { name: string }).name}`));
    const withRecord = (subject: KubeJson, record: string | undefined): KubeJson => {
      assert.ok(record !== undefined, "a record to write");
      const metadata = subject.metadata as { annotations: Record<string, string> };
      return {
        ...subject,
        metadata: { ...metadata, annotations: { ...metadata.annotations, [HOOK_RUNS_ANNOTATION]: record } },
      };
    };

    it("records every hook object of a ready node, for the instance's generation", () => {
      const install = converge(g, instance(1));
      const record = completedHookRuns(instance(1), install.nodes);
      assert.deepEqual(JSON.parse(record ?? "null"), {
        generation: 1,
        done: ["Job/rel-both", "Job/rel-install", "Secret/rel-seed"],
      });
      assert.equal(completedHookRuns(withRecord(instance(1), record), install.nodes), undefined, "nothing new");
    });

    it("a node that is not ready (a Job not complete yet) records nothing", () => {
      const lookup = createMemoryLookup([]);
      const first = evaluateInstance(g, instance(1), lookup);
      lookup.put(...first.apply);
      const created = evaluateInstance(g, instance(1), lookup);
      assert.equal(created.nodes.find((n) => n.id === "hooks")?.ready, false);
      assert.deepEqual(JSON.parse(completedHookRuns(instance(1), created.nodes) ?? "null"), {
        generation: 1,
        done: ["Secret/rel-seed"],
      });
    });

    it("a completed run deleted afterwards (TTL) is not created again and holds nobody", () => {
      const install = converge(g, instance(1));
      const done = withRecord(instance(1), completedHookRuns(instance(1), install.nodes));
      const afterTtl = without(install.apply, "Job/rel-both", "Job/rel-install");
      const evaluation = converge(g, done, afterTtl);
      assert.deepEqual(names(evaluation.apply), ["ConfigMap/rel-app"]);
      assert.ok(
        evaluation.nodes.every((n) => n.ready),
        JSON.stringify(evaluation.nodes.map((n) => [n.id, n.pending])),
      );
      assert.equal(evaluation.nodes.find((n) => n.id === "app")?.pending, undefined);
    });

    it("a done run is kept, unless its hook-delete-policy says hook-succeeded: then it is pruned", () => {
      const install = converge(g, instance(1));
      const done = withRecord(instance(1), completedHookRuns(instance(1), install.nodes));
      const evaluation = converge(g, done, install.apply);
      assert.deepEqual(
        evaluation.nodes
          .flatMap((n) => n.retained ?? [])
          .map((i) => `${i.kind}/${i.name}`)
          .sort(),
        ["Job/rel-both", "Secret/rel-seed"],
      );
      assert.deepEqual(
        prunePlan(g, inventoryOf(install.apply), evaluation)
          .flat()
          .map((e) => `${e.kind}/${e.name}`),
        ["Job/rel-install"],
      );
    });

    it("the next generation runs its upgrade hooks all the same, and its record replaces the previous one", () => {
      const install = converge(g, instance(1));
      const record = completedHookRuns(instance(1), install.nodes);
      const upgrade = withRecord(instance(2), record);
      const evaluation = converge(g, upgrade, install.apply);
      assert.deepEqual(names(evaluation.apply), [
        "ConfigMap/rel-app",
        "ConfigMap/rel-cfg",
        "Job/rel-both-2",
        "Job/rel-upgrade-2",
      ]);
      assert.deepEqual(JSON.parse(completedHookRuns(upgrade, evaluation.nodes) ?? "null"), {
        generation: 2,
        done: ["ConfigMap/rel-cfg", "Job/rel-both-2", "Job/rel-upgrade-2"],
      });
    });

    it("an unreadable record counts nothing as done", () => {
      const broken = instance(1, { [HOOK_RUNS_ANNOTATION]: "{not json" });
      assert.deepEqual(names(converge(g, broken).apply), [
        "ConfigMap/rel-app",
        "Job/rel-both",
        "Job/rel-install",
        "Secret/rel-seed",
      ]);
    });
  });
});
