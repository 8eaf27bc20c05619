/**
 * The apiVersion of a kind whose `apiVersion:` line is templated (`{{ include
 * "common.capabilities.policy.apiVersion" . }}`, a Bitnami-style capabilities helper) and that the
 * chart's values do not render (a ServiceMonitor behind `metrics.serviceMonitor.enabled`): the
 * expression is rendered on its own, with the chart's helpers, values and capabilities
 * (`--kube-version`, `--api-versions`), as Helm renders it. The child gets that apiVersion, so an
 * instance that enables the kind renders it. An expression that renders no apiVersion leaves a kind
 * Kubernetes serves at its usual version; any other kind is an import error naming file and line —
 * a kind without a child would render nothing, silently.
 */
import type { HelmContext } from "../graph/index.js";
import { renderChartOutputs, type KubeJson } from "../runtime/index.js";
import type { TemplateKind, TemplatedKind } from "./template-scan.js";
import { HelmImportError } from "./types.js";

const API_VERSION = /^([a-z0-9]([a-z0-9.-]*[a-z0-9])?\/)?v[0-9]+[a-z0-9]*$/;

/**
 * The chart's templates with only `expression` left to render, in `chartPrefix`'s templates
 * folder (so it sees that chart's values): every other file becomes a partial (its `define`s stay
 * in the set, nothing of it renders), and no chart is disabled (a disabled subchart's kind needs a
 * child too).
 */
function expressionOnly(
  helm: HelmContext,
  chartPrefix: string,
  expression: string,
): { helm: HelmContext; name: string } {
  const name = `${chartPrefix}templates/kro-api-version.yaml`;
  const templates: Record<string, string> = {};
  for (const [file, text] of Object.entries(helm.templates)) {
    const slash = file.lastIndexOf("/") + 1;
    const base = file.slice(slash);
    templates[base.startsWith("_") ? file : `${file.slice(0, slash)}_kro-scan-${base}`] = text;
  }
  templates[name] = expression;
  const charts = helm.charts.map(({ condition: _condition, ...chart }) => chart);
  return { helm: { ...helm, templates, charts }, name };
}

type Rendered = { apiVersion: string } | { error: string };

/** Per chart context and values: charts of one family write the same helper call in many templates. */
const rendered = new WeakMap<HelmContext, WeakMap<KubeJson, Map<string, Rendered>>>();

/** What `expression` renders to with the chart's values and capabilities, or why it renders none. */
export function renderApiVersion(
  helm: HelmContext,
  chartPrefix: string,
  expression: string,
  instance: KubeJson,
): Rendered {
  const perHelm = rendered.get(helm) ?? new WeakMap<KubeJson, Map<string, Rendered>>();
  rendered.set(helm, perHelm);
  const known = perHelm.get(instance) ?? new Map<string, Rendered>();
  perHelm.set(instance, known);
  const key = `${chartPrefix}\u0000${expression}`;
  const answer = known.get(key) ?? renderAlone(helm, chartPrefix, expression, instance);
  known.set(key, answer);
  return answer;
}

function renderAlone(helm: HelmContext, chartPrefix: string, expression: string, instance: KubeJson): Rendered {
  const only = expressionOnly(helm, chartPrefix, expression);
  // A copy: renders are memoised per instance object, and this is another chart.
  const outcome = renderChartOutputs(only.helm, { ...instance });
  if (!outcome.ok) return { error: outcome.error ?? "the render is pending" };
  const text = (outcome.value.get(only.name) ?? "").trim().replace(/^(["'])(.*)\1$/, "$2");
  return API_VERSION.test(text)
    ? { apiVersion: text }
    : { error: `it renders ${JSON.stringify(text)}, not an apiVersion` };
}

/** The templated kinds of one template with their apiVersions; throws HelmImportError (file and line) for one that has none. */
export function resolveTemplatedKinds(
  helm: HelmContext,
  chartPrefix: string,
  templated: readonly TemplatedKind[],
  instance: KubeJson,
  file: string,
): TemplateKind[] {
  return templated.map((t) => {
    const rendered =
      t.expression === undefined
        ? { error: "the document has no apiVersion line" }
        : renderApiVersion(helm, chartPrefix, t.expression, instance);
    if ("apiVersion" in rendered) return { apiVersion: rendered.apiVersion, kind: t.kind };
    if (t.known !== undefined) return { apiVersion: t.known, kind: t.kind };
    throw new HelmImportError(
      `kind ${t.kind}: the chart's values do not render it and its apiVersion ${t.expression ?? ""} cannot be resolved (${rendered.error}); without a child its objects would never render. Write the apiVersion out, or render it from .Values, .Release, .Chart or .Capabilities only`,
      file,
      t.line,
    );
  });
}
