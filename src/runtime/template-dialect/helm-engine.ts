/**
 * How a chart's templates run for one instance (template-dialect.md §9): spec.helm's charts
 * become Helm's per-chart data (`.Values` scoped to the chart with the root's `global` coalesced
 * in, `.Chart`, `.Files`, `.Subcharts`, a shared `.Release` and `.Capabilities`) and every
 * template renders in one set with Helm's engine (src/template's renderHelmTemplates), as
 * `helm template` renders a release.
 */
import type { HelmChartScope, HelmContext } from "../../graph/index.js";
import {
  helmCapabilities,
  helmChart,
  helmFiles,
  parseTemplate,
  renderHelmTemplates,
  renderTemplate,
  type HelmLookup,
  type HelmTemplate,
  type RenderDeadline,
  type Template,
} from "../../template/index.js";
import { isRecord, metadataOf } from "../identity.js";
import type { HelmCapabilities, KubeJson } from "../types.js";
import { instanceEntropy } from "./entropy.js";
import { chartValues, coalesceValues, DEFAULT_KUBE_VERSION } from "./helm-data.js";
import { templateTruth } from "./run.js";

function chartFor(context: HelmContext, template: string): HelmChartScope | undefined {
  let best: HelmChartScope | undefined;
  for (const chart of context.charts) {
    if (
      template.startsWith(chart.templatePrefix) &&
      (best === undefined || chart.templatePrefix.length > best.templatePrefix.length)
    )
      best = chart;
  }
  return best;
}

const conditions = new WeakMap<HelmChartScope, Template>();

/** Whether a chart is enabled for `instance`: no condition, or its condition renders true (a parent's disabling wins). */
function enabled(chart: HelmChartScope, instance: KubeJson): boolean {
  if (chart.condition === undefined) return true;
  let template = conditions.get(chart);
  if (template === undefined) {
    template = parseTemplate(`${chart.templatePrefix}condition`, chart.condition);
    conditions.set(chart, template);
  }
  const { status: _status, ...parent } = instance;
  return templateTruth(renderTemplate(template, { parent, children: {} })) === true;
}

/** Every template of the enabled charts with its chart's data, in Helm's terms. */
export function helmTemplates(context: HelmContext, given: KubeJson, cluster?: HelmCapabilities): HelmTemplate[] {
  // The spec over the chart's defaults, as Helm coalesces user values (a null removes a default:
  // the API server keeps it, as every defaulted field of an imported schema is nullable).
  const instance =
    context.values === undefined
      ? given
      : { ...given, spec: coalesceValues(context.values, isRecord(given.spec) ? given.spec : {}) };
  const metadata = metadataOf(instance);
  const release = {
    Name: typeof metadata.name === "string" ? metadata.name : "",
    Namespace: typeof metadata.namespace === "string" ? metadata.namespace : "",
    // A constant first install: objects must not change with every generation of the instance.
    IsInstall: true,
    IsUpgrade: false,
    Revision: 1,
    Service: "Helm",
  };
  // On a cluster, what its API server says (as `helm install`); offline, spec.helm's values (as `helm template`).
  const capabilities = helmCapabilities(
    cluster ?? { kubeVersion: context.kubeVersion ?? DEFAULT_KUBE_VERSION, apiVersions: context.apiVersions },
  );
  const data = new Map<HelmChartScope, Record<string, unknown>>();
  for (const [i, chart] of context.charts.entries()) {
    if (!enabled(chart, instance)) continue;
    data.set(chart, {
      Chart: helmChart(chart.metadata, i === 0),
      Files: helmFiles(chart.files),
      Release: release,
      Capabilities: capabilities,
      Values: chartValues(instance.spec, chart),
      Subcharts: {},
    });
  }
  // `.Subcharts.<name>` of a chart is its direct subchart's data.
  for (const chart of context.charts) {
    const match = /^(.*\/)charts\/([^/]+)\/$/.exec(chart.templatePrefix);
    const parent = match ? context.charts.find((c) => c.templatePrefix === match[1]) : undefined;
    const subcharts = parent === undefined ? undefined : data.get(parent)?.Subcharts;
    if (match?.[2] !== undefined && isRecord(subcharts)) subcharts[match[2]] = data.get(chart);
  }
  return Object.entries(context.templates).flatMap(([name, text]) => {
    const chart = chartFor(context, name);
    const chartData = chart === undefined ? undefined : data.get(chart);
    return chart === undefined || chartData === undefined
      ? []
      : [{ name, text, data: chartData, basePath: `${chart.templatePrefix}templates` }];
  });
}

/** Renders every template of the chart for `instance`: output by template name. Throws TemplateError. */
export function renderChart(
  context: HelmContext,
  instance: KubeJson,
  cluster: { capabilities?: HelmCapabilities; lookup?: HelmLookup; deadline?: RenderDeadline } = {},
): Map<string, string> {
  const entropy = instanceEntropy(instance);
  return renderHelmTemplates(helmTemplates(context, instance, cluster.capabilities), {
    ...(entropy === undefined ? {} : { entropy }),
    ...(cluster.lookup === undefined ? {} : { lookup: cluster.lookup }),
    ...(cluster.deadline === undefined ? {} : { deadline: cluster.deadline }),
  });
}
