/**
 * Helm's recAllTpls: the templates of a chart and its subcharts, each with its chart's data
 * (`.Values` scoped to the subchart, `.Chart`, `.Files`, `.Subcharts`, shared `.Release` and
 * `.Capabilities`) and Helm's names ("parent/charts/sub/templates/x.yaml"). Values must already
 * be coalesced as Helm's CoalesceValues does (defaults, user values, globals).
 */
import type { HelmTemplate } from "./helm-engine.js";
import { helmCapabilities, helmChart, helmFiles, type HelmCapabilitiesInput } from "./helm-objects.js";
import type { TemplateSource } from "../engine/index.js";

export interface HelmChartInput {
  /** Chart.yaml as parsed (name, version, appVersion, type, …). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Files under templates/, named by their path in the chart ("templates/x.yaml"). */
  readonly templates: readonly TemplateSource[];
  /** Every other file of the chart (what `.Files` sees), by path. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
  readonly subcharts?: readonly HelmChartInput[];
}

export interface HelmReleaseInput {
  readonly name: string;
  readonly namespace: string;
  readonly revision?: number;
  readonly isUpgrade?: boolean;
  /** "Helm" when Helm renders. */
  readonly service?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every template of the chart tree with its data, ready for renderHelmTemplates. */
export function helmChartTemplates(
  chart: HelmChartInput,
  values: Readonly<Record<string, unknown>>,
  release: HelmReleaseInput,
  capabilities: HelmCapabilitiesInput,
): HelmTemplate[] {
  const releaseData = {
    Name: release.name,
    Namespace: release.namespace,
    IsUpgrade: release.isUpgrade === true,
    IsInstall: release.isUpgrade !== true,
    Revision: release.revision ?? 1,
    Service: release.service ?? "Helm",
  };
  const caps = helmCapabilities(capabilities);
  const out: HelmTemplate[] = [];
  const walk = (
    c: HelmChartInput,
    vals: Readonly<Record<string, unknown>>,
    parentPath: string | undefined,
  ): Record<string, unknown> => {
    const name = typeof c.metadata.name === "string" ? c.metadata.name : "";
    const fullPath = parentPath === undefined ? name : `${parentPath}/charts/${name}`;
    const subcharts: Record<string, unknown> = {};
    const data: Record<string, unknown> = {
      Chart: helmChart(c.metadata, parentPath === undefined),
      Files: helmFiles(c.files ?? {}),
      Release: releaseData,
      Capabilities: caps,
      Values: vals,
      Subcharts: subcharts,
    };
    for (const sub of c.subcharts ?? []) {
      const subName = typeof sub.metadata.name === "string" ? sub.metadata.name : "";
      const scoped = vals[subName];
      subcharts[subName] = walk(sub, isRecord(scoped) ? scoped : {}, fullPath);
    }
    const library = typeof c.metadata.type === "string" && c.metadata.type.toLowerCase() === "library";
    for (const t of c.templates) {
      if (library && !t.name.slice(t.name.lastIndexOf("/") + 1).startsWith("_")) continue;
      out.push({ name: `${fullPath}/${t.name}`, text: t.text, data, basePath: `${fullPath}/templates` });
    }
    return data;
  };
  walk(chart, values, undefined);
  return out;
}
