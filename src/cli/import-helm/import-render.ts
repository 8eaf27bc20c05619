/**
 * An imported chart rendered offline as the controller would render it: the graph compiled with
 * the built-in schemas of a Kubernetes minor plus the imported CRD, and the example instance
 * evaluated. `kro import helm` uses it for its scope report, the live migration for its plan.
 * No cluster client here: a chart import loads none, so it starts fast.
 */
import { hasErrors } from "../../diag/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, withCrds, type CompiledGraph, type SchemaResolver } from "../../graph/index.js";
import type { HelmImportResult } from "../../helm/index.js";
import type { KubeObject } from "../../kube/index.js";
import { DEFAULT_KUBE_MINOR, resolveKubeRelease } from "../../localcluster/index.js";
import {
  applySchemaDefaults,
  renderInstance,
  type HelmClusterOptions,
  type InstanceEvaluation,
  type KubeJson,
} from "../../runtime/index.js";
import type { CustomResourceDefinition } from "../../schema/index.js";
import { loadBuiltinSchemas, InputError } from "../inputs/index.js";
import { PACKAGE_VERSION } from "../version.js";

function builtinMinor(gitVersion: string): string {
  const minor = /^v?(\d+\.\d+)/.exec(gitVersion)?.[1] ?? DEFAULT_KUBE_MINOR;
  try {
    return resolveKubeRelease(minor).minor;
  } catch {
    return DEFAULT_KUBE_MINOR;
  }
}

/** Kinds as the import's objects know them: its own CRD, then Kubernetes' built-in kinds (scope included). */
export async function importResolver(imported: HelmImportResult, gitVersion: string): Promise<SchemaResolver> {
  return withCrds([imported.crd], await loadBuiltinSchemas(builtinMinor(gitVersion)));
}

/** The imported RGD compiled as the controller compiles it; an error lists every compile error. */
export async function compileImported(imported: HelmImportResult, gitVersion: string): Promise<CompiledGraph> {
  const resolver = await importResolver(imported, gitVersion);
  const compiled = compileRgd(imported.rgd, { resolver, env: createKroCelEnvironment({ enableRuntime: true }) });
  if (hasErrors(compiled.issues) || compiled.graph === undefined) {
    const errors = compiled.issues
      .filter((i) => i.severity === "error")
      .map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new InputError(`the imported RGD does not compile:\n  ${errors.join("\n  ")}`);
  }
  return compiled.graph;
}

/**
 * One render of the instance as the controller would apply it at its generation (1 for a new
 * instance), every child assumed applied and ready. `helm` is the chart's view of the cluster
 * (absent: offline, as `helm template`). The evaluation is returned whole: a caller that answers
 * lookups reads the scopes it asked for from it.
 */
export function renderImported(
  imported: HelmImportResult,
  graph: CompiledGraph,
  instance: KubeObject,
  helm?: HelmClusterOptions,
): InstanceEvaluation {
  const crd = imported.crd as unknown as CustomResourceDefinition;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  // A new instance is created at generation 1: render what the controller will apply then (hooks: template-dialect/hook-runs.ts).
  const metadata = instance.metadata ?? {};
  const generated = {
    ...instance,
    metadata: { ...metadata, generation: (metadata as { generation?: number }).generation ?? 1 },
  };
  // Rendered as if every child were applied and ready, without the live objects: a live object
  // of the release lacks kro's labels until it is adopted, so a manifests child would not see it
  // as its own and everything depending on it would stay unrendered.
  return renderInstance(graph, applySchemaDefaults(crd, generated), {
    now,
    kroVersion: PACKAGE_VERSION,
    assumeReady: true,
    ...(helm === undefined ? {} : { helm }),
  }).evaluation;
}

/** What the controller would apply, or the render's error. */
export function appliedObjects(evaluation: InstanceEvaluation): KubeJson[] {
  if (evaluation.error !== undefined)
    throw new InputError(`the imported instance does not render: ${evaluation.error}`);
  return [...evaluation.apply];
}

/** What the controller would apply for the instance, rendered offline (the graph compiled as the controller compiles it). */
export async function renderDesired(
  imported: HelmImportResult,
  instance: KubeObject,
  gitVersion: string,
): Promise<KubeJson[]> {
  return appliedObjects(renderImported(imported, await compileImported(imported, gitVersion), instance));
}
