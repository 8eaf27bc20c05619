/**
 * Renders a Helm chart the way `helm template` does, with kro-ts's own Go text/template engine,
 * so that deploy/kro-controller.yaml is generated from the chart without a helm binary. Covers
 * what charts/kro-ts uses: .Values/.Release/.Chart/.Capabilities, {{define}} in _*.tpl partials,
 * Helm's `include`, Sprig's `trunc`, `fail`, `toYaml`, and `crds/`. Values are numbers as
 * float64, as in Helm (so `{{ .Values.replicaCount }}` prints 2 and 1e6 prints 1e+06).
 */
import { parse, parseAllDocuments } from "yaml";
import { coalesceValues } from "../helm/index.js";
import { goFunc, isTemplateError, parseTemplate, renderTemplate, type FuncMap, type Template } from "../template/index.js";

export interface ChartFile {
  /** Path inside the chart, e.g. templates/deployment.yaml. */
  readonly path: string;
  readonly text: string;
}

export interface ChartSource {
  readonly chartYaml: string;
  readonly valuesYaml: string;
  /** Every file under templates/: manifests, _*.tpl partials, NOTES.txt. */
  readonly templates: readonly ChartFile[];
  /** Plain (never templated) CRD manifests under crds/. */
  readonly crds: readonly ChartFile[];
}

export interface RenderChartOptions {
  readonly releaseName: string;
  readonly namespace: string;
  /** `.Release.Service`: "Helm" when Helm renders; the flat manifest uses another value. */
  readonly service: string;
  /** Deep-merged over values.yaml, like `helm --set`/`-f`; a null removes a key. */
  readonly values?: Record<string, unknown>;
  readonly kubeVersion?: string;
}

export interface RenderedChart {
  /** Rendered templates/ files (in path order), empty ones included. */
  readonly files: readonly ChartFile[];
  /** Every non-empty YAML document of the CRDs and the rendered templates. */
  readonly crdObjects: readonly Record<string, unknown>[];
  readonly objects: readonly Record<string, unknown>[];
}

/** A render failure, located in the chart: `templates/x.yaml:12:5: message`. */
export class ChartRenderError extends Error {
  override readonly name = "ChartRenderError";
  constructor(readonly file: string, readonly line: number, readonly column: number, readonly reason: string) {
    super(`${file}:${line}:${column}: ${reason}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parseYamlMap(file: string, text: string): Record<string, unknown> {
  const value: unknown = parse(text);
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) throw new ChartRenderError(file, 1, 1, "must be a YAML mapping");
  return value;
}

/** Sprig's trunc: a negative count keeps the end of the string. */
function trunc(count: { value: bigint }, s: string): string {
  const c = Number(count.value);
  if (c < 0 && s.length + c > 0) return s.slice(s.length + c);
  if (c >= 0 && s.length > c) return s.slice(0, c);
  return s;
}

/** Parses one template file together with every partial, so {{define}}s are shared as in Helm. */
function parseChartTemplate(file: ChartFile, partials: readonly ChartFile[]): Template {
  let self: Template | undefined;
  const funcs: FuncMap = {
    trunc: goFunc(["int", "string"], trunc),
    include: goFunc(["string", "any"], (name: string, data: unknown) => {
      if (self === undefined) throw new Error("include called before the template was parsed");
      // The engine's own toJson turns the engine's value back into plain JSON data.
      const toJson = self.funcs.toJson?.fn as ((v: unknown) => string) | undefined;
      const plain: unknown = toJson === undefined ? null : JSON.parse(toJson(data) || "null");
      return renderTemplate(self, plain, { templateName: name, integers: "float64", missingKey: "zero" });
    }),
  };
  // Each file must parse on its own first, so a syntax error (an unclosed action, a stray end)
  // is reported in the file that has it rather than where the joined text ran out.
  for (const part of [file, ...partials]) {
    try {
      parseTemplate(part.path, part.text, { funcs });
    } catch (e) {
      throw locate(part, [], e);
    }
  }
  const text = [file.text, ...partials.map((p) => p.text)].join("\n");
  try {
    self = parseTemplate(file.path, text, { funcs });
  } catch (e) {
    throw locate(file, partials, e);
  }
  return self;
}

/** Maps a position in the joined text back to the file it came from; `fail` keeps only its message, as Helm does. */
function locate(file: ChartFile, partials: readonly ChartFile[], e: unknown): Error {
  if (!isTemplateError(e)) return e instanceof Error ? e : new Error(String(e));
  let line = e.line;
  let where = file;
  for (const candidate of [file, ...partials]) {
    where = candidate;
    const lines = candidate.text.split("\n").length;
    if (line <= lines) break;
    line -= lines;
  }
  const failed = /error calling fail: ([\s\S]*)$/.exec(e.message)?.[1];
  return new ChartRenderError(where.path, line, e.column, failed ?? e.message);
}

function documents(file: ChartFile, text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(text)) {
    const [error] = doc.errors;
    if (error !== undefined) {
      // The YAML position is in the rendered output, not the template: say so instead of pointing into the template.
      const [line = 1, column = 1] = [error.linePos?.[0].line, error.linePos?.[0].col];
      throw new ChartRenderError(file.path, 1, 1, `rendered output is not valid YAML (at its line ${line}, column ${column}): ${error.message}`);
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) throw new ChartRenderError(file.path, 1, 1, "rendered document is not a Kubernetes object (a YAML mapping)");
    out.push(value);
  }
  return out;
}

export function renderChart(chart: ChartSource, options: RenderChartOptions): RenderedChart {
  const meta = parseYamlMap("Chart.yaml", chart.chartYaml);
  const values = coalesceValues(parseYamlMap("values.yaml", chart.valuesYaml), options.values ?? {});
  const kubeVersion = options.kubeVersion ?? "v1.33.0";
  const [major = "1", minor = "33"] = kubeVersion.replace(/^v/, "").split(".");
  const data = {
    Values: values,
    Release: { Name: options.releaseName, Namespace: options.namespace, Service: options.service, IsInstall: true, IsUpgrade: false, Revision: 1 },
    Chart: { Name: meta.name, Version: meta.version, AppVersion: meta.appVersion, Description: meta.description, Type: meta.type },
    Capabilities: { KubeVersion: { Version: kubeVersion, Major: major, Minor: minor } },
  };
  const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  const sorted = [...chart.templates].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const partials = sorted.filter((f) => base(f.path).startsWith("_"));
  const files: ChartFile[] = [];
  const objects: Record<string, unknown>[] = [];
  for (const file of sorted) {
    // Helm renders NOTES.txt only for install output, never as a manifest.
    if (base(file.path).startsWith("_") || base(file.path) === "NOTES.txt") continue;
    const template = parseChartTemplate(file, partials);
    let text: string;
    try {
      text = renderTemplate(template, { ...data, Template: { Name: `${String(meta.name)}/${file.path}`, BasePath: `${String(meta.name)}/templates` } }, { integers: "float64", missingKey: "zero" });
    } catch (e) {
      throw locate(file, partials, e);
    }
    // Helm blanks what missingkey=zero prints for a missing map key.
    text = text.replaceAll("<no value>", "");
    files.push({ path: file.path, text });
    objects.push(...documents(file, text));
  }
  const crdObjects = chart.crds.flatMap((f) => documents(f, f.text));
  return { files, crdObjects, objects };
}
