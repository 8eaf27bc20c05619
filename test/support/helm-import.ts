/**
 * The differential check of `kro import helm`: a chart rendered by the real `helm template` and
 * by kro-ts (import → compile the RGD → the instance defaulted by the imported CRD → render), the
 * objects compared structurally after removing the documented differences
 * (docs/design/helm-import.md): kro-ts's own labels and annotations, `app.kubernetes.io/managed-by`
 * on object metadata, and metadata.namespace defaulted to the release namespace.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { compileRgd } from "../../src/graph/index.js";
import {
  importHelmChart,
  type ChartFiles,
  type HelmImportOptions,
  type HelmImportResult,
} from "../../src/helm/index.js";
import { applySchemaDefaults, renderInstance, validateInstance, type KubeJson } from "../../src/runtime/index.js";
import type { CustomResourceDefinition } from "../../src/schema/index.js";
import { helm } from "./helm.js";
import { goYamlDocuments } from "./yaml-oracle.js";

export const RELEASE = "rel";
export const NAMESPACE = "ns1";

export async function chartFiles(dir: string): Promise<ChartFiles> {
  const out = new Map<string, Uint8Array>();
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.set(path.relative(dir, full).split(path.sep).join("/"), await readFile(full));
    }
  };
  await walk(dir);
  return out;
}

type Obj = KubeJson & { kind: string; metadata: Record<string, unknown> };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** An object with the documented differences taken out. */
export function normalize(object: KubeJson, namespace = NAMESPACE): Obj {
  const metadata = isRecord(object.metadata) ? { ...object.metadata } : {};
  const keep = (map: unknown, drop: (k: string) => boolean): Record<string, unknown> | undefined => {
    if (!isRecord(map)) return undefined;
    const kept = Object.fromEntries(Object.entries(map).filter(([k]) => !drop(k)));
    return Object.keys(kept).length > 0 ? kept : undefined;
  };
  const labels = keep(metadata.labels, (k) => k.startsWith("kro.run/") || k === "app.kubernetes.io/managed-by");
  const annotations = keep(metadata.annotations, (k) => k.startsWith("internal.kro.run/"));
  if (labels) metadata.labels = labels;
  else delete metadata.labels;
  if (annotations) metadata.annotations = annotations;
  else delete metadata.annotations;
  if (metadata.namespace === namespace) delete metadata.namespace;
  return { ...object, kind: String(object.kind), metadata };
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");
export const objectKey = (o: Obj): string => `${o.kind} ${text(o.metadata.namespace)}/${text(o.metadata.name)}`;

const isTestHook = (o: KubeJson): boolean => {
  const annotations = isRecord(o.metadata) && isRecord(o.metadata.annotations) ? o.metadata.annotations : {};
  const hook = annotations["helm.sh/hook"];
  return typeof hook === "string" && hook.split(",").every((h) => h.trim().startsWith("test"));
};

/** `helm template` of the chart with `values`, parsed, test hooks left out. */
export async function helmObjects(
  chart: string,
  values: object,
  extraArgs: readonly string[] = [],
): Promise<Map<string, Obj>> {
  const file = path.join(os.tmpdir(), `kro-helm-values-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(values));
  const out = await helm(["template", RELEASE, chart, "-n", NAMESPACE, "-f", file, ...extraArgs]);
  // Read by Go's sigs.k8s.io/yaml, as `helm install` reads it: kro-ts's reader is what is tested.
  const documents = (await goYamlDocuments(out)).filter((v): v is KubeJson => isRecord(v));
  return new Map(
    documents
      .filter((o) => !isTestHook(o))
      .map((o) => normalize(o))
      .map((o) => [objectKey(o), o]),
  );
}

export interface KroRender {
  readonly imported: HelmImportResult;
  readonly objects: Map<string, Obj>;
  readonly errors: string[];
}

/** kro-ts's objects for an instance whose spec is `values` (defaulted by the imported CRD, as the API server would). */
export function kroObjects(files: ChartFiles, values: object, options: HelmImportOptions = {}): KroRender {
  const imported = importHelmChart(files, { releaseName: RELEASE, namespace: NAMESPACE, ...options });
  const compiled = compileRgd(imported.rgd);
  if (compiled.graph === undefined)
    return { imported, objects: new Map(), errors: compiled.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  const crd = imported.crd as unknown as CustomResourceDefinition;
  const instance = applySchemaDefaults(crd, { ...imported.instance, spec: values });
  const invalid = validateInstance(crd, instance);
  if (invalid.length > 0)
    return { imported, objects: new Map(), errors: invalid.map((i) => `instance ${i.path.join(".")}: ${i.message}`) };
  const result = renderInstance(compiled.graph, instance, { now: "2026-01-01T00:00:00Z", assumeReady: true });
  const errors = [
    ...(result.evaluation.error === undefined ? [] : [result.evaluation.error]),
    ...result.evaluation.nodes.flatMap((n) => (n.error === undefined ? [] : [n.error])),
  ];
  const objects = new Map(result.evaluation.apply.map((o) => normalize(o)).map((o) => [objectKey(o), o]));
  return { imported, objects, errors };
}
