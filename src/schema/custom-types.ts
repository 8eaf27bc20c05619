/**
 * `spec.schema.types`: reusable named types (a mapping, or an alias type string). Types may use
 * each other, so they are built in dependency order; a cycle is reported on each type in it and
 * fields that use a broken type get no second issue.
 */
import { error, type Issue, type IssuePath } from "../diag/index.js";
import {
  buildField,
  describeValue,
  isPlainMap,
  MAX_OBJECT_NESTING,
  type CustomType,
  type CustomTypeLookup,
} from "./field-schema.js";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import { BUILTIN_TYPE_NAMES, customTypeName, parseTypeExpression } from "./type-expression.js";

export interface CustomTypeRegistry extends CustomTypeLookup {
  /** Names in the order they were built (dependencies first). */
  readonly names: readonly string[];
}

export interface CustomTypesResult {
  readonly registry: CustomTypeRegistry;
  readonly issues: Issue[];
}

export const DEFAULT_TYPES_PATH: IssuePath = ["spec", "schema", "types"];

export const EMPTY_TYPE_REGISTRY: CustomTypeRegistry = { names: [], get: () => undefined, isBroken: () => false };

export function resolveCustomTypes(types: unknown, path: IssuePath = DEFAULT_TYPES_PATH): CustomTypesResult {
  const issues: Issue[] = [];
  if (types === undefined || types === null) return { registry: EMPTY_TYPE_REGISTRY, issues };
  if (!isPlainMap(types)) {
    issues.push(
      error(
        SCHEMA_ISSUE_CODES.unexpectedValue,
        path,
        `unexpected type: types must be a mapping of name to type, got ${describeValue(types)}`,
      ),
    );
    return { registry: EMPTY_TYPE_REGISTRY, issues };
  }
  const broken = new Set<string>();
  const definitions = new Map<string, unknown>();
  for (const name of Object.keys(types).sort()) {
    if (BUILTIN_TYPE_NAMES.includes(name)) {
      issues.push(
        error(SCHEMA_ISSUE_CODES.typeShadowsBuiltin, [...path, name], `type ${name} has the name of a built-in type`),
      );
      continue;
    }
    definitions.set(name, types[name]);
  }

  const dependencies = new Map<string, Set<string>>();
  for (const [name, definition] of definitions) {
    const used = new Set<string>();
    collectReferences(definition, used, 0);
    dependencies.set(name, new Set([...used].filter((u) => definitions.has(u))));
  }
  const order = orderByDependencies(dependencies);
  for (const name of definitions.keys()) {
    if (order.includes(name)) continue;
    broken.add(name);
    if (reaches(name, name, dependencies))
      issues.push(error(SCHEMA_ISSUE_CODES.typeCycle, [...path, name], `cyclic dependency in type ${name}`));
  }

  const built = new Map<string, CustomType>();
  const lookup = { get: (name: string) => built.get(name), isBroken: (name: string) => broken.has(name) };
  for (const name of order) {
    const before = issues.length;
    const field = buildField(definitions.get(name), { types: lookup, issues }, [...path, name]);
    if (field.schema === undefined || issues.slice(before).some((i) => i.severity === "error")) broken.add(name);
    else built.set(name, { schema: field.schema, required: field.required });
  }
  return { registry: { names: order.filter((n) => built.has(n)), ...lookup }, issues };
}

/** Custom type names a definition mentions, without reporting anything (building does that). */
function collectReferences(definition: unknown, into: Set<string>, depth: number): void {
  if (typeof definition === "string") {
    const bar = definition.indexOf("|");
    const parsed = parseTypeExpression(bar < 0 ? definition : definition.slice(0, bar));
    const name = parsed.type === undefined ? undefined : customTypeName(parsed.type);
    if (name !== undefined) into.add(name);
  } else if (isPlainMap(definition) && depth <= MAX_OBJECT_NESTING) {
    for (const value of Object.values(definition)) collectReferences(value, into, depth + 1);
  }
}

/** Kahn's algorithm, taking ready names alphabetically so the order is deterministic. */
function orderByDependencies(dependencies: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const order: string[] = [];
  const done = new Set<string>();
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const [name, deps] of dependencies) {
      if (done.has(name) || [...deps].some((d) => !done.has(d))) continue;
      order.push(name);
      done.add(name);
      progressed = true;
    }
  }
  return order;
}

function reaches(from: string, target: string, dependencies: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  const seen = new Set<string>();
  const queue = [...(dependencies.get(from) ?? [])];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (next === target) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(dependencies.get(next) ?? []));
  }
  return false;
}
