/**
 * A commented sample instance of a CRD, as YAML text (`kro generate instance`): every required
 * field with a placeholder that satisfies its schema, every defaulted field with its default, the
 * rest commented out (or all filled in with `allFields`, as kro's emulator does). Each field is
 * preceded by its description and a line of facts — type, required, default, allowed values,
 * bounds, pattern, rules — so the file documents the API. Pure: the caller validates the value.
 */
import type { CustomResourceDefinition, JSONSchemaProps, JsonValue } from "./openapi-types.js";
import { effectiveSchema, sampleValue } from "./sample-values.js";

export interface SampleOptions {
  readonly name?: string;
  readonly namespace?: string;
  /** Fill in optional fields too, instead of commenting them out. */
  readonly allFields?: boolean;
  /** Header lines (without `#`) above the document. */
  readonly header?: readonly string[];
}

export interface SampleInstance {
  /** Commented YAML; its uncommented lines are the sample object (the caller parses and validates it). */
  readonly yaml: string;
}

const RESERVED_PLAIN = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
const TOP_LEVEL_SKIPPED = new Set(["apiVersion", "kind", "metadata", "status"]);

/** A scalar as YAML: plain when unambiguous, otherwise JSON (which is valid YAML); collections as flow JSON. */
export function yamlScalar(value: JsonValue): string {
  if (typeof value === "string") {
    const plain = /^[A-Za-z_/][A-Za-z0-9_./-]*$/.test(value) && !RESERVED_PLAIN.test(value);
    return plain ? value : JSON.stringify(value);
  }
  return JSON.stringify(value);
}

function facts(schema: JSONSchemaProps, required: boolean): string {
  const s = effectiveSchema(schema);
  const type =
    s["x-kubernetes-int-or-string"] === true
      ? "integer or string"
      : s.type === "array"
        ? `list of ${effectiveSchema(s.items ?? {}).type ?? "values"}`
        : s.type === "object" && typeof s.additionalProperties === "object"
          ? `map of ${effectiveSchema(s.additionalProperties).type ?? "values"}`
          : (s.type ?? "any");
  const parts = [
    type,
    required ? "required" : s.default === undefined ? "optional" : `default ${yamlScalar(s.default)}`,
  ];
  if (s.enum !== undefined) parts.push(`one of: ${s.enum.map(yamlScalar).join(", ")}`);
  if (s.minimum !== undefined) parts.push(`${s.exclusiveMinimum === true ? "greater than" : "minimum"} ${s.minimum}`);
  if (s.maximum !== undefined) parts.push(`${s.exclusiveMaximum === true ? "less than" : "maximum"} ${s.maximum}`);
  if (s.multipleOf !== undefined) parts.push(`multiple of ${s.multipleOf}`);
  if (s.minLength !== undefined) parts.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  if (s.pattern !== undefined) parts.push(`matches ${s.pattern}`);
  if (s.format !== undefined) parts.push(`format ${s.format}`);
  if (s.minItems !== undefined) parts.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} items`);
  if (s.uniqueItems === true || s["x-kubernetes-list-type"] === "set") parts.push("unique items");
  for (const rule of s["x-kubernetes-validations"] ?? []) parts.push(rule.message ?? `rule: ${rule.rule}`);
  return parts.join(", ");
}

interface Line {
  readonly text: string;
  /** A key line (not a doc comment): where a list item's `- ` goes. */
  readonly field: boolean;
}

class Lines {
  readonly out: Line[] = [];
  add(indent: number, text: string, commented: boolean): void {
    this.out.push({ text: `${" ".repeat(indent)}${commented ? "# " : ""}${text}`, field: true });
  }
  comment(indent: number, text: string): void {
    for (const line of text.split("\n"))
      this.out.push({ text: `${" ".repeat(indent)}# ${line}`.trimEnd(), field: false });
  }
}

const isStruct = (s: JSONSchemaProps): boolean => s.properties !== undefined && Object.keys(s.properties).length > 0;
const isEmptyObject = (v: JsonValue | undefined): boolean =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** A struct with required fields somewhere below it, through nested structs. */
function asksForFields(s: JSONSchemaProps): boolean {
  if (!isStruct(s)) return false;
  if ((s.required ?? []).length > 0) return true;
  return Object.values(s.properties ?? {}).some((child) => asksForFields(effectiveSchema(child)));
}

function orderedKeys(schema: JSONSchemaProps): string[] {
  const required = new Set(schema.required ?? []);
  const keys = Object.keys(schema.properties ?? {});
  return [...keys.filter((k) => required.has(k)), ...keys.filter((k) => !required.has(k))];
}

/** The fields of an object schema, each with its comments; `commented` turns the whole block into comments. */
function emitFields(
  schema: JSONSchemaProps,
  indent: number,
  commented: boolean,
  allFields: boolean,
  lines: Lines,
  top = false,
): void {
  const required = new Set(schema.required ?? []);
  for (const key of orderedKeys(schema)) {
    if (top && TOP_LEVEL_SKIPPED.has(key)) continue;
    const child = schema.properties?.[key] ?? {};
    const s = effectiveSchema(child);
    const isRequired = required.has(key);
    // Top-level fields (spec) are always written: the graph reads them even where the CRD makes them optional.
    // So is a struct with required fields: the author expects it filled in (only its absence would validate).
    const live = !commented && (top || isRequired || s.default !== undefined || allFields || asksForFields(s));
    if (s.description !== undefined) lines.comment(indent, s.description);
    lines.comment(indent, facts(child, isRequired));
    emitValue(key, s, indent, !live, allFields, lines);
  }
}

function emitValue(
  key: string,
  s: JSONSchemaProps,
  indent: number,
  commented: boolean,
  allFields: boolean,
  lines: Lines,
): void {
  const label = /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key) ? key : JSON.stringify(key);
  // A struct without an explicit non-empty default: its fields, one by one, with their own comments.
  if (isStruct(s) && (s.default === undefined || isEmptyObject(s.default))) {
    lines.add(indent, `${label}:`, commented);
    emitFields(s, indent + 2, commented, allFields, lines);
    return;
  }
  // A commented-out field shows an example the user can uncomment, as if every field were asked for.
  const value = sampleValue(s, key, allFields || commented);
  const items = s.items === undefined ? undefined : effectiveSchema(s.items);
  if (items !== undefined && isStruct(items) && s.default === undefined && Array.isArray(value) && value.length > 0) {
    lines.add(indent, `${label}:`, commented);
    for (let i = 0; i < value.length; i++) {
      const item = new Lines();
      emitFields(items, indent + 4, commented, allFields || commented, item);
      const first = item.out.findIndex((l) => l.field);
      const line = item.out[first];
      if (line !== undefined) {
        const rest = line.text.trimStart().replace(commented ? /^# / : /^/, "");
        item.out[first] = { text: `${" ".repeat(indent + 2)}${commented ? "# " : ""}- ${rest}`, field: true };
      }
      lines.out.push(...item.out);
    }
    return;
  }
  lines.add(indent, `${label}: ${yamlScalar(value)}`, commented);
}

/** The version a sample is written for: the storage version, else the first served. */
function sampleVersion(crd: CustomResourceDefinition): { name: string; schema: JSONSchemaProps } {
  const versions = crd.spec.versions;
  const version = versions.find((v) => v.storage) ?? versions.find((v) => v.served) ?? versions[0];
  if (version === undefined) throw new Error(`CRD ${crd.metadata.name} has no versions`);
  return { name: version.name, schema: version.schema.openAPIV3Schema };
}

export function sampleInstance(crd: CustomResourceDefinition, options: SampleOptions = {}): SampleInstance {
  const { name: version, schema } = sampleVersion(crd);
  const apiVersion = crd.spec.group === "" ? version : `${crd.spec.group}/${version}`;
  const kind = crd.spec.names.kind;
  const name = options.name ?? `${kind.toLowerCase()}-sample`; // kro's emulator: <kind>-sample
  const namespaced = crd.spec.scope === "Namespaced";
  const allFields = options.allFields === true;

  const lines = new Lines();
  for (const line of options.header ?? []) lines.comment(0, line);
  lines.add(0, `apiVersion: ${yamlScalar(apiVersion)}`, false);
  lines.add(0, `kind: ${kind}`, false);
  lines.add(0, "metadata:", false);
  lines.add(2, `name: ${yamlScalar(name)}`, false);
  if (namespaced) lines.add(2, `namespace: ${yamlScalar(options.namespace ?? "default")}`, false);
  emitFields(schema, 0, false, allFields, lines, true);

  return { yaml: `${lines.out.map((l) => l.text).join("\n")}\n` };
}
