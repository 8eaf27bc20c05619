/**
 * The Helm behaviours `kro import helm` once dropped, against the real helm binary: `.helmignore`,
 * dependency `import-values`, `null` deleting chart defaults, hook weights. Each chart is rendered
 * by `helm template` and by kro-ts with several value sets and compared structurally
 * (test/support/helm-import.ts lists what is normalised away).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { builtinSchemaResolver, compileRgd, type BuiltinSchemaBundle } from "../../src/graph/index.js";
import { importHelmChart, type ChartFiles } from "../../src/helm/index.js";
import { renderInstance } from "../../src/runtime/index.js";
import { chartFiles, helmObjects, kroObjects, NAMESPACE, RELEASE } from "../support/helm-import.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURES = path.join(ROOT, "test/fixtures/helm");

async function assertSameObjects(chart: string, files: ChartFiles, values: object): Promise<void> {
  const theirs = await helmObjects(chart, values);
  const ours = kroObjects(files, values);
  assert.deepEqual(
    ours.errors,
    [],
    `kro-ts rendered ${path.basename(chart)} with ${JSON.stringify(values)} without errors`,
  );
  assert.deepEqual(
    [...ours.objects.keys()].sort(),
    [...theirs.keys()].sort(),
    `same objects for ${JSON.stringify(values)}`,
  );
  for (const [key, object] of theirs)
    assert.deepEqual(ours.objects.get(key), object, `${key} with ${JSON.stringify(values)}`);
}

describe("kro import helm: the Helm behaviours beyond templates", () => {
  it(".helmignore: globs, dir/, /anchored, the default templates/.?* rule; the root's rules only, also over subcharts", async () => {
    const chart = path.join(FIXTURES, "ignored");
    const files = await chartFiles(chart);
    for (const values of [{}, { suffix: "-x" }]) await assertSameObjects(chart, files, values);
  });

  it("import-values: exports names and child/parent maps, earlier imports and the parent's own values winning, aliases, disabled dependencies", async () => {
    const chart = path.join(FIXTURES, "imports");
    const files = await chartFiles(chart);
    // Helm imports from the charts' defaults only: user values for the subcharts do not flow into the parent's imports.
    const sets = [
      {},
      { port: 2, dbPool: { min: 1 } },
      { db: { settings: { pool: { max: 5 } }, exports: { data: { user: "x" } } } },
      { nested: { fromDb: { timeout: 1 } } },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
  });

  it("a chart with an aliased, conditional subchart that exports values (the live-migration fixture)", async () => {
    const chart = path.join(FIXTURES, "stack");
    const files = await chartFiles(chart);
    for (const values of [{}, { replicas: 3, redis: { replicas: 2 } }, { redis: { enabled: false }, host: "none" }])
      await assertSameObjects(chart, files, values);
  });

  it("YAML 1.1 as Helm reads values.yaml and the API server reads rendered bodies: octal modes, yes/no/on/off/y/n, strings that stay strings", async () => {
    const chart = path.join(FIXTURES, "yaml11");
    const files = await chartFiles(chart);
    for (const values of [{}, { scriptMode: 0o644, answer: "yes", env: { EXTRA: "off" } }])
      await assertSameObjects(chart, files, values);
    const rendered = kroObjects(files, {});
    const volumes = (
      rendered.objects.get("Deployment /rel-yaml11")?.spec as {
        template: {
          spec: {
            volumes: {
              configMap?: { defaultMode?: number; items?: { mode: number }[] };
              secret?: { defaultMode: number };
            }[];
          };
        };
      }
    ).template.spec.volumes;
    assert.deepEqual(
      [volumes[0]?.configMap?.defaultMode, volumes[1]?.secret?.defaultMode, volumes[2]?.configMap?.items?.[0]?.mode],
      [0o755, 0o400, 0o755],
      "octal modes are numbers the API server accepts",
    );
    assert.deepEqual(rendered.objects.get("ConfigMap /rel-yaml11")?.data, {
      answer: "no",
      legacy: "off",
      umask: "0022",
      debug: "false",
      verbose: "true",
      sizes: "1000,16,8",
      "env.yaml": 'LEVEL: "n"\nMODE: "on"\nNAME: plain\n',
    });
  });

  it("a template that switches its kind with if/else, and a hook annotation whose value is templated: every value set renders as helm template does", async () => {
    const chart = path.join(FIXTURES, "switches");
    const files = await chartFiles(chart);
    const sets = [
      {},
      { workload: { kind: "StatefulSet", replicas: 2 } },
      { migrations: { hook: "post-install" } },
      { migrations: { enabled: false } },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
  });

  it("cluster-scoped objects (ClusterRole/Binding, an APIService) and one in kube-system: scope from discovery, so an APIService gets no namespace", async () => {
    const chart = path.join(FIXTURES, "scoped");
    const files = await chartFiles(chart);
    for (const values of [{}, { apiService: { enabled: false } }]) await assertSameObjects(chart, files, values);
    // As `kro render` does: the RGD compiled with the bundled built-in kinds' scopes, the instance rendered.
    const imported = importHelmChart(files, { releaseName: RELEASE, namespace: NAMESPACE });
    const bundle = JSON.parse(
      gunzipSync(readFileSync(path.join(ROOT, "schemas/kubernetes/1.33.json.gz"))).toString("utf8"),
    ) as BuiltinSchemaBundle;
    const graph = compileRgd(imported.rgd, { resolver: builtinSchemaResolver(bundle) }).graph;
    assert.ok(graph, "the imported RGD compiles");
    const applied = renderInstance(
      graph,
      { ...imported.instance, metadata: { name: RELEASE, namespace: NAMESPACE } },
      { now: "2026-01-01T00:00:00Z", assumeReady: true },
    ).evaluation.apply;
    const where = Object.fromEntries(
      applied.map((o) => [
        `${String(o.kind)} ${(o.metadata as { name: string }).name}`,
        (o.metadata as { namespace?: string }).namespace ?? "(cluster)",
      ]),
    );
    assert.deepEqual(
      where,
      {
        "ServiceAccount rel": NAMESPACE,
        "ClusterRole rel-reader": "(cluster)",
        "ClusterRoleBinding rel-reader": "(cluster)",
        "RoleBinding rel-auth-reader": "kube-system",
        "APIService v1beta1.rel.example.com": "(cluster)",
      },
      "cluster-scoped objects carry no namespace (an APIService neither); kube-system stays kube-system",
    );
  });
});
