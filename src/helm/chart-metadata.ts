/**
 * Chart.yaml as Helm reads it: sigs.k8s.io/yaml.Unmarshal into chart.Metadata, whose fields are
 * Go strings — and a YAML boolean or number read into a string field becomes its text
 * (`name: off` is the chart "false", `version: 1.10` is "1.1": float32 `%g`, Helm's well-known
 * trap). Every string field of Metadata, its maintainers and dependencies gets that coercion here.
 */
import { goFloatKey } from "../api/index.js";

const STRING_FIELDS = [
  "name",
  "home",
  "version",
  "description",
  "apiVersion",
  "condition",
  "tags",
  "appVersion",
  "icon",
  "kubeVersion",
  "type",
];
const DEPENDENCY_STRINGS = ["name", "version", "repository", "condition", "alias"];
const MAINTAINER_STRINGS = ["name", "email", "url"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What sigs.k8s.io/yaml puts in a Go string field for a scalar (integral numbers as ints: JSON cannot tell them apart). */
export function goStringField(value: unknown): unknown {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? BigInt(value).toString() : goFloatKey(value);
  return value;
}

function coerce(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out = { ...record };
  for (const f of fields) if (f in out) out[f] = goStringField(out[f]);
  return out;
}

const coerceList = (v: unknown): unknown => (Array.isArray(v) ? v.map(goStringField) : v);

export function asChartMetadata(meta: Record<string, unknown>): Record<string, unknown> {
  const out = coerce(meta, STRING_FIELDS);
  for (const list of ["keywords", "sources"]) if (list in out) out[list] = coerceList(out[list]);
  if (isRecord(out.annotations))
    out.annotations = Object.fromEntries(Object.entries(out.annotations).map(([k, v]) => [k, goStringField(v)]));
  if (Array.isArray(out.maintainers))
    out.maintainers = (out.maintainers as unknown[]).map((m) => (isRecord(m) ? coerce(m, MAINTAINER_STRINGS) : m));
  if (Array.isArray(out.dependencies)) {
    out.dependencies = (out.dependencies as unknown[]).map((d) => {
      if (!isRecord(d)) return d;
      const dep = coerce(d, DEPENDENCY_STRINGS);
      if ("tags" in dep) dep.tags = coerceList(dep.tags);
      return dep;
    });
  }
  return out;
}
