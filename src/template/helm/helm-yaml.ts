/**
 * Helm's fromYaml/fromYamlArray: sigs.k8s.io/yaml.Unmarshal, i.e. YAML 1.1 (go-yaml v2: yes/no
 * are booleans, timestamps stay strings) converted to JSON, so every number is a float64 and
 * every key a string; only the first document counts. Errors come back as Helm returns them
 * (in the "Error" key, or as the array's only element); their wording is the `yaml` library's.
 * Imported here rather than from api's loader: this parses strings at render time, not files.
 */
import { parseAllDocuments, type Tags } from "yaml";
import { fromJson, isMap, type GoMap, type GoValue } from "../go/index.js";

const dropTimestamps = (tags: Tags): Tags => tags.filter((t) => (typeof t === "string" ? t !== "timestamp" : t.tag !== "tag:yaml.org,2002:timestamp"));

/** The first document as JSON-like data, or an error message. */
function parseFirst(text: string): { value: unknown } | { error: string } {
  const docs = parseAllDocuments(text, { version: "1.1", merge: true, customTags: dropTimestamps, uniqueKeys: false });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (doc === undefined) return { value: null };
  const err = doc.errors[0];
  if (err !== undefined) return { error: `error converting YAML to JSON: yaml: line ${err.linePos?.[0].line ?? 1}: ${err.message.split("\n")[0] ?? ""}` };
  const plain: unknown = JSON.parse(JSON.stringify(doc.toJS({ maxAliasCount: 10_000 }) ?? null, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v)));
  return { value: plain };
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  return "object";
}

export function fromYaml(text: string): GoMap {
  const r = parseFirst(text);
  if ("error" in r) return { Error: r.error };
  if (r.value === null) return {};
  if (!isMap(r.value)) return { Error: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${describe(r.value)} into Go value of type map[string]interface {}` };
  return fromJson(r.value, "float64") as GoMap;
}

export function fromYamlArray(text: string): GoValue[] {
  const r = parseFirst(text);
  if ("error" in r) return [r.error];
  if (r.value === null) return [];
  if (!Array.isArray(r.value)) return [`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${describe(r.value)} into Go value of type []interface {}`];
  return fromJson(r.value, "float64") as GoValue[];
}
