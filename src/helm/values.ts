/**
 * Helm's values, computed as Helm computes them: user overrides coalesced over the chart's
 * values.yaml (a `null` override deletes the key), subchart defaults beneath the parent's entry
 * for the subchart, and which subcharts `condition:`/`tags:` enable.
 */
import { coalesceValues } from "../runtime/index.js";
import type { ChartDependency, LoadedChart } from "./chart-load.js";

export type Values = Record<string, unknown>;

function isRecord(value: unknown): value is Values {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `override` over `base`: Helm's coalesce, the one the runtime applies to an instance's spec too. */
export const coalesce = (base: Values, override: Values): Values => coalesceValues(base, override);

/** The chart's values with `user` applied, subcharts' defaults filled in under their names, recursively. */
export function chartValues(chart: LoadedChart, user: Values): Values {
  const values = coalesce(chart.values, user);
  for (const sub of chart.subcharts) {
    const given = isRecord(values[sub.name]) ? (values[sub.name] as Values) : {};
    values[sub.name] = chartValues(sub, given);
  }
  return values;
}

function valueAt(values: unknown, path: readonly string[]): unknown {
  let node = values;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return node;
}

/** Helm's processDependencyEnabled for one dependency: tags first, then the first condition path that holds a bool. */
export function dependencyEnabled(dep: ChartDependency, parentValues: Values, rootValues: Values): boolean {
  let enabled = true;
  if (dep.tags.length > 0) {
    const tags = isRecord(rootValues.tags) ? rootValues.tags : {};
    const states = dep.tags.map((t) => tags[t]).filter((v): v is boolean => typeof v === "boolean");
    if (states.includes(true)) enabled = true;
    else if (states.includes(false)) enabled = false;
  }
  for (const path of (dep.condition ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const value = valueAt(parentValues, path.split("."));
    if (typeof value === "boolean") return value;
  }
  return enabled;
}
