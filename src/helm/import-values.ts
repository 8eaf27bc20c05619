/**
 * A dependency's `import-values` as Helm's chartutil processes them at install (helm 3.18,
 * ProcessDependenciesWithMerge): deepest charts first, for each enabled dependency of a chart, in
 * order, either `- name` (the child's `exports.name` table, merged at the parent's root) or
 * `- child: a.b / parent: x.y` (the child's table at `a.b`, placed at `x.y`; `.` is the root).
 * Earlier imports win over later ones and the parent's own values win over every import. The
 * source is the chart's *default* values (its values.yaml with its subcharts' defaults): Helm
 * never reads the user's values there, so imports are fixed defaults and change the parent's
 * values.yaml as the import sees it. What enables a dependency is read with the import's values.
 */
import type { LoadedChart } from "./chart-load.js";
import { HelmImportError, type HelmImportWarning } from "./types.js";
import { chartValues, dependencyEnabled, type Values } from "./values.js";

function isRecord(value: unknown): value is Values {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Helm's Values.Table: the map at a dotted path, or undefined when a step is missing or not a map. */
function table(values: Values, path: string): Values | undefined {
  let node: unknown = values;
  for (const key of path.split(".")) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return isRecord(node) ? node : undefined;
}

function pathToMap(path: string, data: Values): Values {
  if (path === ".") return data;
  return path.split(".").reduceRight<Values>((inner, key) => ({ [key]: inner }), data);
}

/**
 * Helm's MergeTables, in place as in Go: `dst` wins, maps present on both sides merge, nothing is
 * deleted, and a map taken from `src` is shared, not copied. The sharing is observable and kept:
 * a later import merged into a table an earlier import placed changes that table at its source
 * too (so a subchart's own values can gain keys another dependency exported), as in Helm.
 */
function mergeInto(dst: Values, src: Values): Values {
  for (const [key, value] of Object.entries(src)) {
    const current = dst[key];
    if (!(key in dst)) dst[key] = value;
    else if (isRecord(value) && isRecord(current)) mergeInto(current, value);
  }
  return dst;
}

interface ImportRule {
  readonly child: string;
  readonly parent: string;
}

function importRules(chart: LoadedChart, dep: LoadedChart["dependencies"][number]): ImportRule[] {
  return dep.importValues.map((raw, i) => {
    if (typeof raw === "string") return { child: `exports.${raw}`, parent: "." };
    if (isRecord(raw) && typeof raw.child === "string" && typeof raw.parent === "string")
      return { child: raw.child, parent: raw.parent };
    throw new HelmImportError(
      `dependency "${dep.name}": import-values[${i}] must be a name or a map with child and parent strings`,
      `${chart.dir}Chart.yaml`,
    );
  });
}

/**
 * The chart tree with every chart's values after its dependencies' import-values (children
 * first). `user` is the root's user values, used only to decide which dependencies are enabled.
 */
export function applyImportValues(root: LoadedChart, user: Values, warnings: HelmImportWarning[]): LoadedChart {
  return withImports(root, chartValues(root, user), [], warnings);
}

function withImports(
  chart: LoadedChart,
  rootValues: Values,
  valuesPath: readonly string[],
  warnings: HelmImportWarning[],
): LoadedChart {
  const subcharts = chart.subcharts.map((sub) => withImports(sub, rootValues, [...valuesPath, sub.name], warnings));
  const processed: LoadedChart = { ...chart, subcharts };
  const importing = chart.dependencies.filter((d) => d.importValues.length > 0);
  if (importing.length === 0) return processed;
  // A private copy: imports share its tables, and may change them, as Helm's do with its own copy.
  const defaults = structuredClone(chartValues(processed, {}));
  const here = valuesPath.length === 0 ? rootValues : (table(rootValues, valuesPath.join(".")) ?? {});
  const imported: Values = {};
  for (const dep of importing) {
    const name = dep.alias ?? dep.name;
    if (!chart.subcharts.some((s) => s.name === name) || !dependencyEnabled(dep, here, rootValues)) continue;
    if (dep.condition !== undefined || dep.tags.length > 0) {
      warnings.push({
        file: `${chart.dir}Chart.yaml`,
        message: `dependency "${name}" has import-values and a condition or tags: its imports follow its enabling for the import's values and stay chart defaults for every instance`,
      });
    }
    for (const rule of importRules(chart, dep)) {
      const source = table(defaults, `${name}.${rule.child}`);
      if (source === undefined) {
        warnings.push({
          file: `${chart.dir}Chart.yaml`,
          message: `dependency "${name}": import-values finds no table at ${rule.child} (Helm skips it too)`,
        });
        continue;
      }
      mergeInto(imported, pathToMap(rule.parent, source));
    }
  }
  return { ...processed, values: mergeInto(structuredClone(defaults), imported) };
}
