/**
 * Validation of an instance against its generated CRD, worded like the API server's field errors
 * (`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer`), so
 * `kro render` rejects a bad instance before rendering it, the way `kubectl apply` would.
 * Covers what SimpleSchema markers produce: types, required, enum, pattern, numeric and length
 * bounds, list sizes, set uniqueness, undeclared fields (kubectl's strict field validation) and
 * `x-kubernetes-validations` CEL rules.
 */
import { error, formatPath, type Issue, type IssuePath } from "../../diag/index.js";
import {
  compileExpression,
  createKroCelEnvironment,
  jsonToCel,
  type CompiledExpression,
  type KroCelEnvironment,
} from "../../expr/index.js";
import {
  compileGoRegexpCached,
  GoRegexpSyntaxError,
  type CustomResourceDefinition,
  type JSONSchemaProps,
} from "../../schema/index.js";
import { isRecord } from "../identity.js";
import type { KubeJson } from "../types.js";
import { crdSchema } from "./defaults.js";

const CODE = "instance.invalid";
// Built on first use (~0.4 MB kept): only CRDs with x-kubernetes-validations rules need it.
let env: KroCelEnvironment | undefined;
const rules = new Map<string, CompiledExpression>();

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** How the API server prints a value in "Invalid value: …". */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return JSON.stringify(typeName(value));
}

function hasType(value: unknown, schema: JSONSchemaProps): boolean {
  if (schema["x-kubernetes-int-or-string"] === true)
    return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
  switch (schema.type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return true;
  }
}

/** RE2 (linear time) as the API server uses; a pattern RE2 rejects is left to the API server. */
function patternMatches(pattern: string, value: string): boolean {
  try {
    return compileGoRegexpCached(pattern).test(value);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) return true;
    throw e;
  }
}

function celRule(rule: string): CompiledExpression {
  let compiled = rules.get(rule);
  if (compiled === undefined) {
    compiled = compileExpression((env ??= createKroCelEnvironment()), rule);
    rules.set(rule, compiled);
  }
  return compiled;
}

function checkRules(value: unknown, schema: JSONSchemaProps, path: IssuePath, issues: Issue[]): void {
  for (const rule of schema["x-kubernetes-validations"] ?? []) {
    // Transition rules (oldSelf) only run on update; render validates a create.
    if (/\boldSelf\b/.test(rule.rule)) continue;
    const where = formatPath(path);
    try {
      const result = celRule(rule.rule).evaluate({ self: jsonToCel(value, schema) });
      if (result !== true)
        issues.push(
          error(CODE, path, `Invalid value: ${shown(value)}: ${rule.message ?? `failed rule: ${rule.rule}`}`),
        );
    } catch (e) {
      issues.push(
        error(
          CODE,
          path,
          `Invalid value: ${shown(value)}: ${where === "" ? "" : `${where}: `}rule ${JSON.stringify(rule.rule)} could not be evaluated: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
    }
  }
}

function checkScalar(value: unknown, schema: JSONSchemaProps, path: IssuePath, issues: Issue[]): void {
  const where = formatPath(path);
  const invalid = (what: string): void => {
    issues.push(error(CODE, path, `Invalid value: ${shown(value)}: ${where} in body ${what}`));
  };
  if (schema.enum !== undefined && !schema.enum.some((e) => e === value)) {
    issues.push(
      error(
        CODE,
        path,
        `Unsupported value: ${shown(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`,
      ),
    );
  }
  if (typeof value === "string") {
    if (schema.pattern !== undefined && !patternMatches(schema.pattern, value))
      invalid(`should match '${schema.pattern}'`);
    // The API server counts runes (code points), not UTF-16 units.
    let length = 0;
    for (const _ of value) length++;
    if (schema.minLength !== undefined && length < schema.minLength)
      invalid(`should be at least ${schema.minLength} chars long`);
    if (schema.maxLength !== undefined && length > schema.maxLength)
      invalid(`should be at most ${schema.maxLength} chars long`);
  }
  if (typeof value === "number") {
    if (
      schema.minimum !== undefined &&
      (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum)
    )
      invalid(`should be greater than ${schema.exclusiveMinimum === true ? "" : "or equal to "}${schema.minimum}`);
    if (
      schema.maximum !== undefined &&
      (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum)
    )
      invalid(`should be less than ${schema.exclusiveMaximum === true ? "" : "or equal to "}${schema.maximum}`);
  }
}

function visit(value: unknown, schema: JSONSchemaProps, path: IssuePath, issues: Issue[]): void {
  const where = formatPath(path);
  if (value === null && schema.nullable === true) return;
  if (!hasType(value, schema)) {
    issues.push(
      error(
        CODE,
        path,
        `Invalid value: ${JSON.stringify(typeName(value))}: ${where} in body must be of type ${String(schema.type)}`,
      ),
    );
    return;
  }
  checkScalar(value, schema, path, issues);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      issues.push(
        error(
          CODE,
          path,
          `Invalid value: ${value.length}: ${where} in body should have at least ${schema.minItems} items`,
        ),
      );
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      issues.push(error(CODE, path, `Too many: ${value.length}: must have at most ${schema.maxItems} items`));
    if (schema["x-kubernetes-list-type"] === "set" || schema.uniqueItems === true) {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const key = JSON.stringify(item);
        if (seen.has(key)) issues.push(error(CODE, [...path, i], `Duplicate value: ${shown(item)}`));
        seen.add(key);
      });
    }
    if (schema.items !== undefined)
      value.forEach((item, i) => {
        visit(item, schema.items as JSONSchemaProps, [...path, i], issues);
      });
  } else if (isRecord(value)) {
    for (const key of schema.required ?? [])
      if (value[key] === undefined) issues.push(error(CODE, [...path, key], "Required value"));
    const extra = isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined;
    // kubectl validates strictly by default: a field the schema does not declare is rejected.
    const closed =
      schema.properties !== undefined &&
      schema.additionalProperties === undefined &&
      schema["x-kubernetes-preserve-unknown-fields"] !== true;
    for (const [key, child] of Object.entries(value)) {
      const childSchema = schema.properties?.[key] ?? extra;
      if (childSchema === undefined && closed)
        issues.push(error(CODE, [...path, key], `unknown field "${formatPath([...path, key])}"`));
      if (childSchema !== undefined && child !== undefined) visit(child, childSchema, [...path, key], issues);
    }
  }
  checkRules(value, schema, path, issues);
}

/** Every way `instance` fails the CRD's schema; empty when the API server would accept it. */
export function validateInstance(crd: CustomResourceDefinition, instance: KubeJson): Issue[] {
  const schema = crdSchema(
    crd,
    typeof instance.apiVersion === "string" ? instance.apiVersion.split("/").pop() : undefined,
  );
  const issues: Issue[] = [];
  const expected = `${crd.spec.group}/${crd.spec.versions.map((v) => v.name).join("|")}`;
  const version = typeof instance.apiVersion === "string" ? instance.apiVersion : "";
  if (!crd.spec.versions.some((v) => `${crd.spec.group}/${v.name}` === version))
    issues.push(error(CODE, ["apiVersion"], `Invalid value: ${shown(instance.apiVersion)}: expected ${expected}`));
  if (instance.kind !== crd.spec.names.kind)
    issues.push(error(CODE, ["kind"], `Invalid value: ${shown(instance.kind)}: expected ${crd.spec.names.kind}`));
  const metadata = isRecord(instance.metadata) ? instance.metadata : {};
  if (typeof metadata.name !== "string" || metadata.name === "")
    issues.push(error(CODE, ["metadata", "name"], "Required value: name is required"));
  if (crd.spec.scope === "Cluster" && metadata.namespace !== undefined)
    issues.push(
      error(
        CODE,
        ["metadata", "namespace"],
        `Forbidden: ${crd.spec.names.kind} is cluster-scoped and has no namespace`,
      ),
    );
  if (schema !== undefined) {
    // apiVersion, kind and metadata are always allowed at the root (checked above), whether or
    // not the schema declares them: users' own CRDs (template dialect) usually do not.
    const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = instance;
    visit(rest, { ...schema, properties: { ...schema.properties } }, [], issues);
  }
  return issues;
}
