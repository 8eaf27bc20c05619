/**
 * Phase 8 of kro's compile: type-check every expression against the schemas it reads (the
 * instance's spec, each resource's kind) and the schema of the field it writes.
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import {
  compileField,
  TypedScope,
  type DeclaredVariables,
  type FoundField,
  type KroCelEnvironment,
  type OpenApiSchema,
} from "../../expr/index.js";
import type { DraftNode } from "./compile-resource.js";
import { MAX_COLLECTION_SIZE } from "../naming.js";
import type { SchemaResolver } from "../schema-resolver.js";
import { instanceMetadataSchema } from "./instance-metadata.js";

const UNTYPED: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };
const BOOLEAN: OpenApiSchema = { type: "boolean" };

/** The schema of the field at `path` inside an object schema; undefined where it is free-form. */
export function schemaAt(root: OpenApiSchema | undefined, path: IssuePath): OpenApiSchema | undefined {
  let node: OpenApiSchema | undefined = root;
  for (const segment of path) {
    if (node === undefined || (node["x-kubernetes-preserve-unknown-fields"] === true && node.properties === undefined))
      return undefined;
    if (typeof segment === "number") node = node.items;
    else
      node =
        node.properties?.[segment] ??
        (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined);
  }
  return node;
}

/** The type a node's id has in expressions: its kind's schema, or a list of it for collections. */
export function nodeVariableSchema(node: DraftNode, resolver: SchemaResolver | undefined): OpenApiSchema {
  const schema = resolver?.resolve(node.apiVersion, node.kind)?.schema ?? UNTYPED;
  // A forEach collection never exceeds MAX_COLLECTION_SIZE items at runtime, which bounds the
  // cost of comprehensions over it; a selector's matches have no such limit.
  if (node.type === "collection") return { type: "array", items: schema, maxItems: MAX_COLLECTION_SIZE };
  return node.type === "externalCollection" ? { type: "array", items: schema } : schema;
}

export interface TypeCheckInput {
  readonly env: KroCelEnvironment;
  readonly nodes: readonly DraftNode[];
  readonly specSchema: OpenApiSchema;
  readonly resolver: SchemaResolver | undefined;
  /** The instance's own scope: a cluster-scoped instance has no metadata.namespace. */
  readonly instanceScope?: "Namespaced" | "Cluster";
}

export function instanceVariable(specSchema: OpenApiSchema, metadata: OpenApiSchema = UNTYPED): OpenApiSchema {
  return {
    type: "object",
    properties: { spec: specSchema, metadata, apiVersion: { type: "string" }, kind: { type: "string" } },
  };
}

function checkField(
  env: KroCelEnvironment,
  scope: TypedScope,
  field: FoundField,
  base: IssuePath,
  expected: OpenApiSchema | undefined,
): { issues: Issue[]; schema: OpenApiSchema | undefined; statusSchema?: OpenApiSchema | undefined } {
  const path = [...base, ...field.path];
  try {
    const compiled = compileField(env, field.text, field.segments);
    const result = compiled.check(scope, { path, ...(expected === undefined ? {} : { expected }) });
    return { issues: [...result.issues], schema: result.schema, statusSchema: result.statusSchema };
  } catch (e) {
    return { issues: [error("expr.parse-error", path, e instanceof Error ? e.message : String(e))], schema: undefined };
  }
}

export interface TypeCheckedNodes {
  readonly issues: Issue[];
  /** `schema` and every resource id declared: the scope status fields and conditions are checked in. */
  readonly scope: TypedScope;
}

export function typeCheckNodes(input: TypeCheckInput): TypeCheckedNodes {
  const { env, nodes, resolver } = input;
  const declared: Record<string, OpenApiSchema> = {
    schema: instanceVariable(input.specSchema, instanceMetadataSchema(resolver, input.instanceScope ?? "Namespaced")),
  };
  for (const node of nodes) declared[node.id] = nodeVariableSchema(node, resolver);
  // Registering a kind's struct types is the expensive part: do it once in a root scope that all
  // other scopes derive from (readyWhen scopes must not see the other variables, so not from base).
  const kinds = new TypedScope(env, {}).preregister(
    nodes.flatMap((n) => resolver?.resolve(n.apiVersion, n.kind)?.schema ?? []),
  );
  const base = kinds.with(declared);
  const issues: Issue[] = [];
  for (const node of nodes) {
    const childSchema = resolver?.resolve(node.apiVersion, node.kind)?.schema;
    const iterators: DeclaredVariables = Object.fromEntries(node.forEach.map((d) => [d.name, UNTYPED]));
    const scope = node.forEach.length > 0 ? base.with(iterators) : base;
    const bodyPath = [
      ...node.path,
      node.type === "external" || node.type === "externalCollection" ? "externalRef" : "template",
    ];
    for (const field of node.fields) {
      const expected = field.standalone ? schemaAt(childSchema, field.path) : undefined;
      issues.push(...checkField(env, scope, field, bodyPath, expected).issues);
    }
    for (const dimension of node.forEach) {
      issues.push(
        ...base.check(dimension.expression, { path: dimension.path, expected: { type: "array", items: UNTYPED } })
          .issues,
      );
    }
    for (const cond of node.includeWhen)
      issues.push(...base.check(cond.text, { path: cond.path, expected: BOOLEAN }).issues);
    if (node.readyWhen.length > 0) {
      const self =
        node.type === "collection" ? { each: childSchema ?? UNTYPED } : { [node.id]: childSchema ?? UNTYPED };
      const readyScope = kinds.with(self);
      for (const cond of node.readyWhen)
        issues.push(...readyScope.check(cond.text, { path: cond.path, expected: BOOLEAN }).issues);
    }
  }
  return { issues, scope: base };
}

/** Status fields: each leaf's inferred type becomes the CRD's status schema. */
export function typeCheckStatus(
  env: KroCelEnvironment,
  scope: TypedScope,
  fields: readonly FoundField[],
  base: IssuePath,
): { issues: Issue[]; types: { path: (string | number)[]; schema: OpenApiSchema }[] } {
  const issues: Issue[] = [];
  const types: { path: (string | number)[]; schema: OpenApiSchema }[] = [];
  for (const field of fields) {
    const checked = checkField(env, scope, field, base, undefined);
    issues.push(...checked.issues);
    // kro types a status field by its expression's CEL type (cel-type-schema.ts); a template string is a string.
    const schema = field.standalone ? (checked.statusSchema ?? UNTYPED) : { type: "string" };
    // Indexes stay numbers: `ips: ["${a}", "${b}"]` is an array in the CRD, as in kro's field paths.
    types.push({ path: [...field.path], schema });
  }
  return { issues, types };
}
