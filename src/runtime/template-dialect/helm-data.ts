/**
 * Values as a chart template of an instance sees them (template-dialect.md §9): the instance's
 * spec at the chart's values path, with the root chart's `global` coalesced over the
 * subchart's own (Helm's coalesceGlobals: the parent wins, maps merge).
 */
import type { HelmChartScope } from "../../graph/index.js";
import { isRecord } from "../identity.js";

/** The Kubernetes version `helm template` assumes without a cluster (helm 3.18). */
export const DEFAULT_KUBE_VERSION = "v1.33.0";

function at(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return node;
}

function mergeGlobals(sub: unknown, parent: unknown): unknown {
  if (!isRecord(parent)) return sub ?? {};
  if (!isRecord(sub)) return parent;
  const out: Record<string, unknown> = { ...sub };
  for (const [key, value] of Object.entries(parent))
    out[key] = isRecord(value) && isRecord(sub[key]) ? mergeGlobals(sub[key], value) : value;
  return out;
}

/**
 * Helm's coalescing of user values over a chart's defaults (chartutil.CoalesceValues): maps merge,
 * anything else from `user` replaces, and a null in `user` removes the key — only where the defaults
 * have that key (a null Helm has no default for stays, as in Helm).
 */
export function coalesceValues(
  defaults: Readonly<Record<string, unknown>>,
  user: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(defaults)) {
    if (!Object.hasOwn(user, key)) out[key] = value;
    else if (user[key] === null) continue;
    else out[key] = isRecord(value) && isRecord(user[key]) ? coalesceValues(value, user[key]) : user[key];
  }
  for (const [key, value] of Object.entries(user)) if (!Object.hasOwn(defaults, key)) out[key] = value;
  return out;
}

export function chartValues(spec: unknown, chart: HelmChartScope): Record<string, unknown> {
  const own = at(spec, chart.valuesPath);
  const values = isRecord(own) ? { ...own } : {};
  if (chart.valuesPath.length > 0) values.global = mergeGlobals(values.global, at(spec, ["global"]));
  return values;
}
