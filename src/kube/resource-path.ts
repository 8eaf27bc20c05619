/**
 * Builds API paths and query strings: /api/v1 for the core group, /apis/<group>/<version>
 * otherwise, /namespaces/<ns>/ only for namespaced resources.
 */
import type { ResourceInfo } from "./discovery.js";

export function resourcePath(
  info: ResourceInfo,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  const prefix = info.group === "" ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const ns =
    info.namespaced && namespace !== undefined && namespace !== ""
      ? `/namespaces/${encodeURIComponent(namespace)}`
      : "";
  const obj = name === undefined ? "" : `/${encodeURIComponent(name)}`;
  const sub = subresource === undefined ? "" : `/${subresource}`;
  return `${prefix}${ns}/${info.resource}${obj}${sub}`;
}

/** A query string from defined, non-empty values ("?a=1&b=2", or "" when nothing is set). */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== "") search.set(k, String(v));
  }
  const s = search.toString();
  return s === "" ? "" : `?${s}`;
}
