/**
 * A chart's files → a tree of loaded charts, as Helm's loader sees them: Chart.yaml (apiVersion
 * v1/v2, dependencies with alias/condition/tags), values.yaml (with its key comments),
 * values.schema.json, templates/ (helpers `_*.tpl` included), crds/, charts/ (directories and
 * .tgz archives, recursively) and every other file as `.Files`.
 */
import { loadYaml, yamlKeyComments } from "../api/index.js";
import { asChartMetadata } from "./chart-metadata.js";
import { decodeChartArchive } from "./chart-archive.js";
import { HelmImportError, type ChartFiles, type HelmImportWarning } from "./types.js";

export interface ChartDependency {
  readonly name: string;
  readonly alias?: string;
  readonly condition?: string;
  readonly tags: readonly string[];
  /** `import-values` as written (names, or maps with child and parent): import-values.ts applies them. */
  readonly importValues: readonly unknown[];
}

export interface LoadedChart {
  /** Effective name: the alias when the parent gives one (Helm renames aliased charts). */
  readonly name: string;
  /** Where this chart's files sit, relative to the root chart ("" for the root, "charts/redis/" for a subchart). */
  readonly dir: string;
  /** Helm's template name prefix: `demo/`, `demo/charts/redis/`. */
  readonly templatePrefix: string;
  /** Chart.yaml as written (name replaced by the alias when the parent gives one): what `.Chart` is built from. */
  readonly metadata: Record<string, unknown>;
  readonly values: Record<string, unknown>;
  /** Comments above values.yaml keys, by key path joined with NUL. */
  readonly valueComments: ReadonlyMap<string, string>;
  readonly schema?: Record<string, unknown>;
  /** Template name → text (`demo/templates/deployment.yaml`). */
  readonly templates: ReadonlyMap<string, string>;
  /** `.Files`: chart-relative path → text. */
  readonly files: Readonly<Record<string, string>>;
  readonly crds: readonly { readonly path: string; readonly text: string }[];
  readonly dependencies: readonly ChartDependency[];
  readonly subcharts: readonly LoadedChart[];
}

const SPECIAL = new Set([
  "Chart.yaml",
  "values.yaml",
  "values.schema.json",
  "Chart.lock",
  "requirements.yaml",
  "requirements.lock",
]);
// `.helmignore` is not special: Helm applies it when reading a directory and then keeps it in `.Files`.

const decoder = new TextDecoder("utf-8", { fatal: false });
const asText = (bytes: Uint8Array): string => decoder.decode(bytes);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function yamlMap(file: string, bytes: Uint8Array | undefined): Record<string, unknown> {
  if (bytes === undefined) return {};
  const loaded = loadYaml(file, asText(bytes));
  const [problem] = loaded.problems;
  if (problem) throw new HelmImportError(problem.issue.message, file, problem.position?.line);
  const value = loaded.documents[0]?.value;
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new HelmImportError("must be a YAML map", file, 1);
  return file.endsWith("Chart.yaml") ? asChartMetadata(value) : value;
}

function dependencyList(meta: Record<string, unknown>, file: string): ChartDependency[] {
  const raw = meta.dependencies;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new HelmImportError("dependencies must be a list", file);
  return raw.map((d, i) => {
    if (!isRecord(d) || typeof d.name !== "string") throw new HelmImportError(`dependencies[${i}] needs a name`, file);
    return {
      name: d.name,
      ...(typeof d.alias === "string" && d.alias !== "" ? { alias: d.alias } : {}),
      ...(typeof d.condition === "string" && d.condition !== "" ? { condition: d.condition } : {}),
      tags: Array.isArray(d.tags) ? d.tags.filter((t): t is string => typeof t === "string") : [],
      importValues: Array.isArray(d["import-values"]) ? (d["import-values"] as unknown[]) : [],
    };
  });
}

/** The files of the subchart at `charts/<entry>`: a directory's files or an archive's. */
function subchartSources(files: ChartFiles, warnings: HelmImportWarning[], dir: string): Map<string, ChartFiles> {
  const groups = new Map<string, Map<string, Uint8Array>>();
  const archives = new Map<string, ChartFiles>();
  for (const [path, bytes] of files) {
    if (!path.startsWith("charts/")) continue;
    const rest = path.slice("charts/".length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      if (rest.endsWith(".tgz")) archives.set(rest, decodeChartArchive(bytes, `${dir}${path}`));
      else
        warnings.push({
          file: `${dir}${path}`,
          message: "not a chart directory or .tgz archive; ignored (as Helm does)",
        });
      continue;
    }
    const name = rest.slice(0, slash);
    const group = groups.get(name) ?? new Map<string, Uint8Array>();
    group.set(rest.slice(slash + 1), bytes);
    groups.set(name, group);
  }
  const out = new Map<string, ChartFiles>(groups);
  for (const [archive, chartFiles] of archives) out.set(archive, chartFiles);
  return out;
}

function chartNameOf(files: ChartFiles, where: string): string {
  const meta = yamlMap(`${where}Chart.yaml`, files.get("Chart.yaml"));
  if (typeof meta.name !== "string" || meta.name === "")
    throw new HelmImportError("Chart.yaml has no name", `${where}Chart.yaml`);
  return meta.name;
}

export function loadChart(
  files: ChartFiles,
  warnings: HelmImportWarning[],
  parent?: { prefix: string; dir: string; alias?: string },
): LoadedChart {
  const dir = parent?.dir ?? "";
  const chartFile = `${dir}Chart.yaml`;
  if (!files.has("Chart.yaml")) throw new HelmImportError("not a Helm chart: Chart.yaml is missing", chartFile);
  const meta = yamlMap(chartFile, files.get("Chart.yaml"));
  const apiVersion = meta.apiVersion ?? "v1";
  if (apiVersion !== "v1" && apiVersion !== "v2")
    throw new HelmImportError(
      `apiVersion ${JSON.stringify(apiVersion)} is not a chart API version (v1 or v2)`,
      chartFile,
    );
  if (typeof meta.name !== "string" || meta.name === "") throw new HelmImportError("name is required", chartFile);
  if (meta.version === undefined) throw new HelmImportError("version is required", chartFile);
  const name = parent?.alias ?? meta.name;
  const templatePrefix = `${parent?.prefix ?? ""}${name}/`;
  const valuesBytes = files.get("values.yaml");
  const values = yamlMap(`${dir}values.yaml`, valuesBytes);
  const schemaBytes = files.get("values.schema.json");
  let schema: Record<string, unknown> | undefined;
  if (schemaBytes !== undefined) {
    try {
      const parsed: unknown = JSON.parse(asText(schemaBytes));
      if (!isRecord(parsed)) throw new Error("not a JSON object");
      schema = parsed;
    } catch (e) {
      throw new HelmImportError(`not a JSON schema: ${(e as Error).message}`, `${dir}values.schema.json`);
    }
  }
  const templates = new Map<string, string>();
  const chartFiles: Record<string, string> = {};
  const crds: { path: string; text: string }[] = [];
  for (const [path, bytes] of [...files].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (SPECIAL.has(path) || path.startsWith("charts/")) continue;
    if (path.startsWith("templates/")) templates.set(`${templatePrefix}${path}`, asText(bytes));
    else {
      if (path.startsWith("crds/")) crds.push({ path: `${dir}${path}`, text: asText(bytes) });
      chartFiles[path] = asText(bytes);
    }
  }
  const dependencies = dependencyList(
    apiVersion === "v2" ? meta : yamlMap(`${dir}requirements.yaml`, files.get("requirements.yaml")),
    chartFile,
  );
  const subcharts: LoadedChart[] = [];
  const used = new Set<string>();
  const sources = [...subchartSources(files, warnings, dir)].map(([entry, sub]) => ({
    entry,
    files: sub,
    name: chartNameOf(sub, `${dir}charts/${entry}/`),
  }));
  for (const dep of dependencies) {
    const source = sources.find((s) => s.name === dep.name);
    if (source === undefined) {
      warnings.push({
        file: chartFile,
        message: `dependency "${dep.name}" is not in charts/ (run helm dependency build first); it is left out`,
      });
      continue;
    }
    used.add(source.entry);
    subcharts.push(
      loadChart(source.files, warnings, {
        prefix: `${templatePrefix}charts/`,
        dir: `${dir}charts/${source.entry}/`,
        ...(dep.alias ? { alias: dep.alias } : {}),
      }),
    );
  }
  for (const source of sources) {
    if (!used.has(source.entry))
      subcharts.push(
        loadChart(source.files, warnings, { prefix: `${templatePrefix}charts/`, dir: `${dir}charts/${source.entry}/` }),
      );
  }
  return {
    name,
    dir,
    templatePrefix,
    metadata: { ...meta, name },
    values,
    valueComments: valuesBytes === undefined ? new Map() : yamlKeyComments(asText(valuesBytes)),
    ...(schema ? { schema } : {}),
    templates,
    files: chartFiles,
    crds,
    dependencies,
    subcharts,
  };
}
