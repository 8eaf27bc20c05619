/**
 * compileRgd for the CEL dialect: the steps of docs/reference/kro-reference.md §5 in order, each in
 * its own file. Every phase reports issues instead of throwing; a graph is returned only without
 * errors.
 */
import { error, hasErrors, prefixIssues, type Issue } from "../../diag/index.js";
import {
  findExpressions,
  referencedIdentifiers,
  valueConversionSchema,
  type FoundField,
  type KroCelEnvironment,
  type OpenApiSchema,
} from "../../expr/index.js";
import { parseSimpleSchema, synthesizeCrd, type CrdSynthesisInput, type JSONSchemaProps } from "../../schema/index.js";
import { deepFreeze, type CompiledGraph, type CompiledNode } from "../compiled-graph.js";
import { checkAuthorConditions } from "./compile-conditions.js";
import { checkForEach } from "./compile-foreach.js";
import { containmentPolicyOf, containmentWarnings } from "../containment.js";
import { draftNode, type DraftNode } from "./compile-resource.js";
import { typeCheckNodes, typeCheckStatus } from "./compile-types.js";
import { applyWaves, formatCycle, topologicalOrder } from "../dag.js";
import { checkKind, checkUniqueIds } from "../naming.js";
import type { SchemaResolver } from "../schema-resolver.js";
import type { UnknownKinds } from "../child-kind-checks.js";
import { checkRuntimeOutsideConditions, checkStatusReferences } from "./restricted-references.js";
import { isRecord } from "../is-record.js";
import { compileVersions, type ApiVersions } from "../versions/index.js";

export interface CompileOptions {
  readonly env: KroCelEnvironment;
  readonly resolver?: SchemaResolver;
  readonly unknownKinds?: UnknownKinds;
}

export interface CompileResult {
  readonly graph?: CompiledGraph;
  readonly issues: readonly Issue[];
}

/** Every expression of a node with its absolute path (fields' paths are relative to the body). */
function expressionsOf(node: DraftNode): { text: string; path: readonly (string | number)[] }[] {
  const body = node.type === "external" || node.type === "externalCollection" ? "externalRef" : "template";
  return [
    ...node.fields.flatMap((f) =>
      f.segments.flatMap((s) =>
        s.kind === "expression" ? [{ text: s.source, path: [...node.path, body, ...f.path] }] : [],
      ),
    ),
    ...node.includeWhen,
    ...node.forEach.map((d) => ({ text: d.expression, path: d.path })),
  ];
}

/** Phase 4: dependencies are the resource ids an expression reads; `schema` is not one. */
function dependenciesOf(env: KroCelEnvironment, node: DraftNode, ids: ReadonlySet<string>, issues: Issue[]): string[] {
  const deps = new Set<string>();
  for (const { text, path } of expressionsOf(node)) {
    let names: Set<string>;
    try {
      names = referencedIdentifiers(env, text);
    } catch {
      continue; // the type-check phase reports the parse error with its path
    }
    for (const name of names) {
      if (name === node.id)
        issues.push(
          error(
            "graph.self-reference",
            path,
            `resource "${node.id}" references itself: self references are not allowed`,
          ),
        );
      else if (ids.has(name)) deps.add(name);
    }
  }
  for (const cond of node.readyWhen) {
    try {
      for (const name of referencedIdentifiers(env, cond.text)) {
        if (ids.has(name) && name !== node.id)
          issues.push(
            error(
              "graph.readywhen-reference",
              cond.path,
              `readyWhen may only reference "${node.type === "collection" ? "each" : node.id}", not "${name}"`,
            ),
          );
      }
    } catch {
      // reported by the type-check phase
    }
  }
  return [...deps];
}

/** Status leaves must all be expressions (kro: "status fields without expressions are not supported"). */
function statusFields(status: unknown, issues: Issue[]): { fields: FoundField[]; conditions: unknown } {
  if (status === undefined) return { fields: [], conditions: undefined };
  if (!isRecord(status)) {
    issues.push(
      error("rgd.invalid-status", ["spec", "schema", "status"], "status must be a map of ${...} expressions"),
    );
    return { fields: [], conditions: undefined };
  }
  const { conditions, ...rest } = status;
  const found = findExpressions(rest, {}, []);
  issues.push(...prefixIssues(["spec", "schema", "status"], found.issues));
  const covered = new Set(found.fields.map((f) => f.path.join("\u0000")));
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (isRecord(value)) for (const [k, v] of Object.entries(value)) visit(v, [...path, k]);
    else if (Array.isArray(value))
      value.forEach((v, i) => {
        visit(v, [...path, i]);
      });
    else if (!covered.has(path.join("\u0000")))
      issues.push(
        error(
          "rgd.status-literal",
          ["spec", "schema", "status", ...path],
          "status fields without expressions are not supported",
        ),
      );
  };
  visit(rest, []);
  return { fields: [...found.fields], conditions };
}

function valueSchemaOf(schema: OpenApiSchema | undefined): { valueSchema?: OpenApiSchema } {
  const valueSchema = valueConversionSchema(schema);
  return valueSchema === undefined ? {} : { valueSchema };
}

function collect(
  result: { versions?: ApiVersions; issues: readonly Issue[] },
  issues: Issue[],
): { versions?: ApiVersions } {
  issues.push(...result.issues);
  return result.versions === undefined ? {} : { versions: result.versions };
}

/** The CRD side of `spec.schema.versions`: nothing at all for an RGD with one version. */
function crdVersions(
  versions: ApiVersions | undefined,
): Pick<CrdSynthesisInput, "extraVersions" | "storageVersion" | "deprecated"> {
  if (versions === undefined) return {};
  return {
    storageVersion: versions.storage,
    extraVersions: versions.versions.map((v) => ({
      name: v.name,
      served: v.served,
      deprecated: v.deprecated,
      specSchema: v.specSchema,
      ...(v.deprecationWarning === undefined ? {} : { deprecationWarning: v.deprecationWarning }),
    })),
    ...(versions.hubDeprecated
      ? { deprecated: versions.hubDeprecationWarning === undefined ? {} : { warning: versions.hubDeprecationWarning } }
      : {}),
  };
}

export function compileCelRgd(
  rgd: Record<string, unknown>,
  spec: Record<string, unknown>,
  options: CompileOptions,
): CompileResult {
  const issues: Issue[] = [];
  const schema = spec.schema;
  if (!isRecord(schema))
    return { issues: [error("rgd.schema-missing", ["spec", "schema"], "spec.schema is required")] };
  issues.push(...checkKind(schema.kind, ["spec", "schema", "kind"]));
  if (typeof schema.apiVersion !== "string" || !/^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$/.test(schema.apiVersion)) {
    issues.push(
      error(
        "rgd.api-version",
        ["spec", "schema", "apiVersion"],
        `apiVersion must look like v1, v1alpha1 or v2beta3, got ${JSON.stringify(schema.apiVersion)}`,
      ),
    );
  }
  const scope = schema.scope === "Cluster" ? "Cluster" : "Namespaced";
  const parsed = parseSimpleSchema(schema.spec ?? {}, {
    types: schema.types,
    path: ["spec", "schema", "spec"],
    typesPath: ["spec", "schema", "types"],
  });
  issues.push(...parsed.issues);
  const versions: { versions?: ApiVersions } =
    parsed.schema === undefined || typeof schema.apiVersion !== "string"
      ? {}
      : collect(
          compileVersions({ env: options.env, schema, hubName: schema.apiVersion, hubSpec: parsed.schema }),
          issues,
        );

  const resources = spec.resources ?? [];
  if (!Array.isArray(resources))
    return { issues: [...issues, error("rgd.invalid-field", ["spec", "resources"], "spec.resources must be a list")] };
  const drafts: DraftNode[] = [];
  resources.forEach((entry, index) => {
    const drafted = draftNode(entry, index, {
      resolver: options.resolver,
      instanceScope: scope,
      ...(options.unknownKinds === undefined ? {} : { unknownKinds: options.unknownKinds }),
    });
    issues.push(...drafted.issues);
    if (drafted.node) drafts.push(drafted.node);
  });
  issues.push(...checkUniqueIds(drafts.map((d) => ({ id: d.id, path: [...d.path, "id"] }))));
  issues.push(...containmentWarnings(drafts, scope, containmentPolicyOf(rgd)));
  const ids = new Set(drafts.map((d) => d.id));
  for (const d of drafts)
    for (const dim of d.forEach)
      if (ids.has(dim.name))
        issues.push(
          error(
            "rgd.iterator-shadows-id",
            dim.path,
            `forEach iterator "${dim.name}" has the same name as a resource id`,
          ),
        );

  const dependencies = new Map(drafts.map((d) => [d.id, dependenciesOf(options.env, d, ids, issues)]));
  for (const d of drafts)
    issues.push(...checkRuntimeOutsideConditions(options.env, [...expressionsOf(d), ...d.readyWhen]));
  for (const d of drafts) issues.push(...checkForEach(options.env, d));
  const ordered = topologicalOrder({ ids: drafts.map((d) => d.id), dependencies });
  if (!ordered.ok)
    issues.push(error("graph.cycle", ["spec", "resources"], `graph contains a cycle: ${formatCycle(ordered.cycle)}`));
  const specSchema = (parsed.schema ?? { type: "object" }) as OpenApiSchema;
  const typed = typeCheckNodes({
    env: options.env,
    nodes: drafts,
    specSchema,
    resolver: options.resolver,
    instanceScope: scope,
  });
  issues.push(...typed.issues);

  const status = statusFields(schema.status, issues);
  issues.push(...checkStatusReferences(options.env, status.fields, ids, ["spec", "schema", "status"]));
  const statusTypes = typeCheckStatus(options.env, typed.scope, status.fields, ["spec", "schema", "status"]);
  issues.push(...statusTypes.issues);
  const conditions = checkAuthorConditions(options.env, typed.scope, status.conditions, [
    "spec",
    "schema",
    "status",
    "conditions",
  ]);
  issues.push(...conditions.issues);

  if (
    hasErrors(issues) ||
    !ordered.ok ||
    parsed.schema === undefined ||
    typeof schema.kind !== "string" ||
    typeof schema.apiVersion !== "string"
  )
    return { issues };
  const synthesized = synthesizeCrd({
    kind: schema.kind,
    version: schema.apiVersion,
    ...(typeof schema.group === "string" ? { group: schema.group } : {}),
    scope,
    specSchema: parsed.schema,
    statusFields: statusTypes.types.map((t) => ({ path: t.path, schema: t.schema as JSONSchemaProps })),
    ...(Array.isArray(schema.additionalPrinterColumns)
      ? { additionalPrinterColumns: schema.additionalPrinterColumns as never }
      : {}),
    ...(Array.isArray(schema.shortNames) ? { shortNames: schema.shortNames as string[] } : {}),
    ...(Array.isArray(schema.categories) ? { categories: schema.categories as string[] } : {}),
    ...crdVersions(versions.versions),
  });
  issues.push(...synthesized.issues);
  if (hasErrors(issues)) return { issues };

  const waves = applyWaves({ ids: drafts.map((d) => d.id), dependencies });
  const nodes: CompiledNode[] = drafts.map((d) => ({
    ...valueSchemaOf(options.resolver?.resolve(d.apiVersion, d.kind)?.schema),
    id: d.id,
    index: d.index,
    type: d.type,
    apiVersion: d.apiVersion,
    kind: d.kind,
    namespaced: d.namespaced,
    template: d.template,
    fields: d.fields,
    includeWhen: d.includeWhen.map((c) => c.text),
    readyWhen: d.readyWhen.map((c) => c.text),
    forEach: d.forEach.map(({ name, expression }) => ({ name, expression })),
    ...(d.propagateWhen.length === 0 ? {} : { propagateWhen: d.propagateWhen }),
    ...(d.clusters === undefined ? {} : { clusters: d.clusters }),
    dependencies: dependencies.get(d.id) ?? [],
    wave: waves.get(d.id) ?? 1,
  }));
  const names = synthesized.crd.spec.names;
  const metadata = isRecord(rgd.metadata) ? rgd.metadata : {};
  const graph: CompiledGraph = {
    dialect: "cel",
    name: typeof metadata.name === "string" ? metadata.name : "",
    instance: {
      group: synthesized.crd.spec.group,
      version: schema.apiVersion,
      kind: schema.kind,
      plural: names.plural,
      scope,
    },
    crd: synthesized.crd,
    ...(versions.versions === undefined ? {} : { versions: versions.versions }),
    nodes,
    topologicalOrder: ordered.order,
    status: status.fields.map((f) => ({ path: f.path.map(String), text: f.text })),
    conditions: conditions.conditions,
  };
  return { graph: deepFreeze(graph), issues };
}
