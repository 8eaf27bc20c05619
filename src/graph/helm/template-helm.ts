/**
 * `spec.helm` of a template-dialect RGD (template-dialect.md §9): the chart context that
 * `manifests` children render in — every template file of a chart and its subcharts by Helm's
 * name (`demo/templates/deployment.yaml`), one entry per chart (its `.Chart`, `.Files` and where
 * its `.Values` sit in the instance's spec), and the `.Capabilities` to use offline. Every
 * template is parsed here, so syntax errors are issues at the file's path with the line inside it.
 */
import { error, innerError, type Issue, type IssuePath } from "../../diag/index.js";
import { goFunc, isTemplateError, parseTemplate, type FuncMap } from "../../template/index.js";
import { inflateRecord, type InflateBudget } from "./helm-compression.js";
import { HELM_FUNCTION_NAMES } from "./helm-function-names.js";
import { helmLookupSites, type HelmLookupSite } from "./helm-lookups.js";
import { isRecord } from "../is-record.js";

export interface HelmChartScope {
  /** Templates whose name starts with this prefix belong to this chart (`demo/`, `demo/charts/redis/`); the longest prefix wins. */
  readonly templatePrefix: string;
  /** Keys from the instance's spec to this chart's values ([] for the root chart, ["redis"] for subchart redis). */
  readonly valuesPath: readonly string[];
  /** What templates see as `.Chart` (Helm's capitalised field names: Name, Version, AppVersion, …). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** What templates see through `.Files`: chart-relative path → text. */
  readonly files: Readonly<Record<string, string>>;
  /**
   * A subchart's enabling rule (its dependency's condition:/tags:, and its parents'), as a Go
   * template over `.parent` rendering true or false. A disabled chart renders nothing and is not
   * in its parent's `.Subcharts`, as in Helm.
   */
  readonly condition?: string;
}

export interface HelmContext {
  /** Every template file of the chart and its subcharts (helpers `_*.tpl` included), by Helm's template name. */
  readonly templates: Readonly<Record<string, string>>;
  /** Root chart first. */
  readonly charts: readonly HelmChartScope[];
  /** `.Capabilities.KubeVersion` when no cluster tells (e.g. "v1.33.0"). */
  readonly kubeVersion?: string;
  /** Extra `.Capabilities.APIVersions` entries (group/version or group/version/Kind). */
  readonly apiVersions: readonly string[];
  /** The chart's default values, which an instance's spec is coalesced over (absent: RGDs imported before they were carried). */
  readonly values?: Readonly<Record<string, unknown>>;
  /** The declared lookups: calls with literal apiVersion and kind (helm-lookups.ts); absent = none. */
  readonly lookups?: readonly HelmLookupSite[];
}

/** Placeholders so the parser accepts every Helm/Sprig name; the runtime supplies the implementations. */
const declaredOnly: FuncMap = Object.fromEntries(
  HELM_FUNCTION_NAMES.map((name) => [
    name,
    goFunc(
      [],
      () => {
        throw new Error(`internal: ${name} is declared for parsing only`);
      },
      "any",
    ),
  ]),
);

/** Parses a chart template the way the compiler checks it (every Helm function name declared). */
export function parseChartTemplate(name: string, text: string): void {
  parseTemplate(name, text, { funcs: declaredOnly });
}

function stringRecord(value: unknown, path: IssuePath, what: string, issues: Issue[]): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    issues.push(error("rgd.invalid-field", path, `${what} must be a map of names to strings`));
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, text] of Object.entries(value)) {
    if (typeof text === "string") out[key] = text;
    else
      issues.push(
        error(
          "rgd.invalid-field",
          [...path, key],
          `${what} values must be strings, got ${text === null ? "null" : typeof text}`,
        ),
      );
  }
  return out;
}

function chartScope(
  value: unknown,
  path: IssuePath,
  budget: InflateBudget,
  issues: Issue[],
): HelmChartScope | undefined {
  if (!isRecord(value)) {
    issues.push(
      error(
        "rgd.invalid-field",
        path,
        "each spec.helm.charts entry must be an object with templatePrefix, valuesPath, metadata and files",
      ),
    );
    return undefined;
  }
  const { templatePrefix, valuesPath = [], metadata = {}, files, filesGzip, condition } = value;
  if (typeof templatePrefix !== "string" || templatePrefix === "") {
    issues.push(
      error(
        "rgd.invalid-field",
        [...path, "templatePrefix"],
        'templatePrefix must be a non-empty string such as "mychart/"',
      ),
    );
    return undefined;
  }
  if (!Array.isArray(valuesPath) || !valuesPath.every((k): k is string => typeof k === "string")) {
    issues.push(error("rgd.invalid-field", [...path, "valuesPath"], "valuesPath must be a list of keys"));
    return undefined;
  }
  if (!isRecord(metadata)) {
    issues.push(error("rgd.invalid-field", [...path, "metadata"], "metadata must be a map (the chart's .Chart)"));
    return undefined;
  }
  if (condition !== undefined) {
    if (typeof condition !== "string") {
      issues.push(error("rgd.invalid-field", [...path, "condition"], "condition must be a Go template string"));
      return undefined;
    }
    try {
      parseTemplate(`charts[${String(path[path.length - 1])}].condition`, condition);
    } catch (e) {
      if (!isTemplateError(e)) throw e;
      issues.push(
        innerError("template.parse-error", [...path, "condition"], { line: e.line, column: e.column }, e.message),
      );
      return undefined;
    }
  }
  const plainFiles = stringRecord(files, [...path, "files"], "files", issues);
  const allFiles = { ...plainFiles, ...inflateRecord(filesGzip, plainFiles, [...path, "filesGzip"], budget, issues) };
  return {
    templatePrefix,
    valuesPath,
    metadata,
    files: allFiles,
    ...(typeof condition === "string" ? { condition } : {}),
  };
}

/** `values`, or `valuesGzip` (base64 gzip of their JSON): an object, never both. */
function chartDefaults(
  helm: Record<string, unknown>,
  path: IssuePath,
  budget: InflateBudget,
  issues: Issue[],
): Record<string, unknown> | undefined {
  const { values, valuesGzip } = helm;
  if (values !== undefined && valuesGzip !== undefined) {
    issues.push(
      error("rgd.invalid-field", [...path, "valuesGzip"], "values are given both as an object and gzipped: keep one"),
    );
    return undefined;
  }
  if (values !== undefined) {
    if (isRecord(values)) return values;
    issues.push(
      error(
        "rgd.invalid-field",
        [...path, "values"],
        "spec.helm.values must be an object (the chart's default values)",
      ),
    );
    return undefined;
  }
  if (valuesGzip === undefined) return undefined;
  const before = issues.length;
  const text = inflateRecord({ valuesGzip }, {}, path, budget, issues).valuesGzip;
  if (text === undefined || issues.length > before) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // reported below
  }
  issues.push(
    error(
      "rgd.invalid-field",
      [...path, "valuesGzip"],
      "spec.helm.valuesGzip must hold the JSON of an object (the chart's default values)",
    ),
  );
  return undefined;
}

/** Validates `spec.helm`; undefined when absent or broken (issues say why). */
export function compileHelmContext(value: unknown, issues: Issue[]): HelmContext | undefined {
  if (value === undefined) return undefined;
  const path: IssuePath = ["spec", "helm"];
  if (!isRecord(value)) {
    issues.push(error("rgd.invalid-field", path, "spec.helm must be an object with templates and charts"));
    return undefined;
  }
  const before = issues.length;
  const budget: InflateBudget = { used: 0 };
  const plainTemplates = stringRecord(value.templates, [...path, "templates"], "spec.helm.templates", issues);
  const gzipped = inflateRecord(value.templatesGzip, plainTemplates, [...path, "templatesGzip"], budget, issues);
  const templates = { ...plainTemplates, ...gzipped };
  for (const [name, text] of Object.entries(templates)) {
    try {
      parseChartTemplate(name, text);
    } catch (e) {
      if (!isTemplateError(e)) throw e;
      issues.push(
        innerError(
          "template.parse-error",
          [...path, Object.hasOwn(gzipped, name) ? "templatesGzip" : "templates", name],
          { line: e.line, column: e.column },
          e.message,
        ),
      );
    }
  }
  const rawCharts = value.charts;
  if (!Array.isArray(rawCharts) || rawCharts.length === 0)
    issues.push(error("rgd.invalid-field", [...path, "charts"], "spec.helm.charts must list at least the root chart"));
  const charts = (Array.isArray(rawCharts) ? rawCharts : []).flatMap(
    (c, i) => chartScope(c, [...path, "charts", i], budget, issues) ?? [],
  );
  const { kubeVersion, apiVersions = [] } = value;
  if (kubeVersion !== undefined && (typeof kubeVersion !== "string" || !/^v?\d+\.\d+(\.\d+)?/.test(kubeVersion))) {
    issues.push(
      error(
        "rgd.invalid-field",
        [...path, "kubeVersion"],
        `kubeVersion must look like v1.33.0, got ${JSON.stringify(kubeVersion)}`,
      ),
    );
  }
  if (!Array.isArray(apiVersions) || !apiVersions.every((a): a is string => typeof a === "string")) {
    issues.push(error("rgd.invalid-field", [...path, "apiVersions"], "apiVersions must be a list of strings"));
  }
  const values = chartDefaults(value, path, budget, issues);
  if (issues.length > before) return undefined;
  return {
    templates,
    charts,
    ...(values === undefined ? {} : { values }),
    ...(typeof kubeVersion === "string" ? { kubeVersion } : {}),
    apiVersions: apiVersions as string[],
    lookups: helmLookupSites(templates),
  };
}

/** The chart a template belongs to: the longest templatePrefix that starts its name. */
export function chartOfTemplate(context: HelmContext, templateName: string): HelmChartScope | undefined {
  let best: HelmChartScope | undefined;
  for (const chart of context.charts) {
    if (
      templateName.startsWith(chart.templatePrefix) &&
      (best === undefined || chart.templatePrefix.length > best.templatePrefix.length)
    )
      best = chart;
  }
  return best;
}
