/**
 * Helm's fromYaml/fromYamlArray: sigs.k8s.io/yaml.Unmarshal, i.e. YAML 1.1 (go-yaml v2: yes/no/y/n
 * are booleans, 0755 is octal, timestamps stay strings) converted to JSON, so every number is a
 * float64 and every key a string; only the first document counts. The reading rules are api's
 * (GO_YAML_READ, the ones every file is read with); errors come back as Helm returns them (in the
 * "Error" key, or as the array's only element), their wording the `yaml` library's. Not api's
 * loader: this parses strings at render time, with no file positions to keep.
 */
import { parseAllDocuments } from "yaml";
import { applyGoJsonRules, GO_YAML_READ } from "../../api/index.js";
import { fromJson, isMap, type GoMap, type GoValue } from "../go/index.js";

/** The first document as JSON-like data, or an error message. */
function parseFirst(text: string): { value: unknown } | { error: string } {
  const docs = parseAllDocuments(text, GO_YAML_READ);
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (doc === undefined) return { value: null };
  const err = doc.errors[0];
  if (err !== undefined)
    return {
      error: `error converting YAML to JSON: yaml: line ${err.linePos?.[0].line ?? 1}: ${err.message.split("\n")[0] ?? ""}`,
    };
  const unjsonable = applyGoJsonRules(doc.contents)[0];
  if (unjsonable !== undefined) return { error: `error converting YAML to JSON: ${unjsonable.message}` };
  const plain: unknown = JSON.parse(
    JSON.stringify(doc.toJS({ maxAliasCount: 10_000 }) ?? null, (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v,
    ),
  );
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
  if (!isMap(r.value))
    return {
      Error: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${describe(r.value)} into Go value of type map[string]interface {}`,
    };
  return fromJson(r.value, "float64") as GoMap;
}

export function fromYamlArray(text: string): GoValue[] {
  const r = parseFirst(text);
  if ("error" in r) return [r.error];
  if (r.value === null) return [];
  if (!Array.isArray(r.value))
    return [
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${describe(r.value)} into Go value of type []interface {}`,
    ];
  return fromJson(r.value, "float64") as GoValue[];
}
