/**
 * The data a chart template sees (template-dialect.md §9), built from the instance the way Helm
 * builds it from a release: `.Values` (the instance's spec, scoped to the chart, with `global`
 * from the root), `.Release` (Name/Namespace = the instance's; a constant first install, so
 * objects do not churn with generations), `.Chart`, `.Files`, `.Capabilities`, `.Template`.
 */
import type { HelmChartScope, HelmContext } from "../../graph/index.js";
import { isRecord, metadataOf } from "../identity.js";
import type { KubeJson } from "../types.js";

/** The Kubernetes version `helm template` assumes without a cluster (helm 3.18). */
export const DEFAULT_KUBE_VERSION = "v1.33.0";
export const HELM_VERSION = "v3.18.6";

function at(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return node;
}

/** Helm's coalesce for globals: the parent's keys win, maps merge. */
function mergeGlobals(sub: unknown, parent: unknown): unknown {
  if (!isRecord(parent)) return sub ?? {};
  if (!isRecord(sub)) return parent;
  const out: Record<string, unknown> = { ...sub };
  for (const [key, value] of Object.entries(parent)) out[key] = isRecord(value) && isRecord(sub[key]) ? mergeGlobals(sub[key], value) : value;
  return out;
}

export function chartValues(spec: unknown, chart: HelmChartScope): Record<string, unknown> {
  const own = at(spec, chart.valuesPath);
  const values = isRecord(own) ? { ...own } : {};
  if (chart.valuesPath.length > 0) values.global = mergeGlobals(values.global, at(spec, ["global"]));
  return values;
}

function capabilities(context: HelmContext): Record<string, unknown> {
  const gitVersion = context.kubeVersion === undefined ? DEFAULT_KUBE_VERSION : context.kubeVersion.startsWith("v") ? context.kubeVersion : `v${context.kubeVersion}`;
  const [major = "1", minor = "0"] = gitVersion.slice(1).split(/[.+-]/);
  return {
    KubeVersion: { Version: gitVersion, Major: major, Minor: minor, GitVersion: gitVersion },
    APIVersions: [...context.apiVersions],
    HelmVersion: { Version: HELM_VERSION, GitCommit: "", GitTreeState: "", GoVersion: "" },
  };
}

export function helmData(context: HelmContext, chart: HelmChartScope, templateName: string, instance: KubeJson): Record<string, unknown> {
  const metadata = metadataOf(instance);
  const basePath = `${chart.templatePrefix}templates`;
  return {
    Values: chartValues(instance.spec, chart),
    Release: {
      Name: typeof metadata.name === "string" ? metadata.name : "",
      Namespace: typeof metadata.namespace === "string" ? metadata.namespace : "",
      IsInstall: true,
      IsUpgrade: false,
      Revision: 1,
      Service: "Helm",
    },
    Chart: chart.metadata,
    Files: chart.files,
    Capabilities: capabilities(context),
    Template: { Name: templateName, BasePath: basePath },
    Subcharts: {},
  };
}
