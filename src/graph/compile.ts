/**
 * compileRgd: the one entry point the controller and the CLI share. Detects the dialect and
 * rejects mixtures; each dialect has its own compiler (compile-cel.ts, compile-template.ts) and
 * both produce the same CompiledGraph model, told apart by `graph.dialect`.
 */
import { error, hasErrors, type Issue } from "../diag/index.js";
import { createKroCelEnvironment, TypedScope, type KroCelEnvironment, type OpenApiSchema } from "../expr/index.js";
import { compileCelRgd, type CompileResult } from "./cel/index.js";
import { compileTemplateRgd } from "./template-dialect/index.js";
import type { SchemaResolver } from "./schema-resolver.js";
import { compileFailure, tooDeepIssue, tooDeepPath } from "./input-limits.js";
import type { UnknownKinds } from "./child-kind-checks.js";
import { isRecord } from "./is-record.js";
import { specWithoutNulls, unknownSchemaFields } from "./rgd-wire-shape.js";
import { deepFreeze, type CompiledGraph } from "./compiled-graph.js";
import { compileRolloutPolicy, REVISION_STATUS_SCHEMA } from "./rollout-policy.js";
import { GRAPH_REVISION_STATUS } from "../api/index.js";
import type { CustomResourceDefinition } from "../schema/index.js";

export interface CompileRgdOptions {
  /** Schemas and scopes of child kinds; without one, child fields are untyped. */
  readonly resolver?: SchemaResolver;
  /** Reuse one CEL environment across compiles (it is immutable once built). */
  readonly env?: KroCelEnvironment;
  /** A child kind no schema source knows: "warn" (default; offline it may be a CRD we cannot see) or "error" (discovery is available). */
  readonly unknownKinds?: UnknownKinds;
}

/**
 * Compiles an RGD. Total: never throws, whatever the input (a hostile or broken RGD yields
 * issues, so the controller can always write ResourceGraphAccepted=False with the reason).
 */
export function compileRgd(rgd: unknown, options: CompileRgdOptions = {}): CompileResult {
  const deep = tooDeepPath(rgd);
  if (deep !== undefined) return { issues: [tooDeepIssue(deep)] };
  try {
    return compileChecked(rgd, options);
  } catch (e) {
    return { issues: [compileFailure(e)] };
  }
}

function compileChecked(rgd: unknown, options: CompileRgdOptions): CompileResult {
  const env = options.env ?? createKroCelEnvironment({ enableRuntime: true });
  const result = compileDialect(rgd, { ...options, env });
  const rollout = isRecord(rgd) && isRecord(rgd.spec) ? specWithoutNulls(rgd.spec).rollout : undefined;
  return rollout === undefined ? result : withRolloutPolicy(result, rollout, env);
}

const UNTYPED: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };

/**
 * `spec.rollout` checked, its `healthyWhen` typed against the instance as the CRD stores it (the
 * template dialect's CRD is the user's, unknown offline: untyped), and carried on the graph.
 */
function withRolloutPolicy(result: CompileResult, rollout: unknown, env: KroCelEnvironment): CompileResult {
  const graph = result.graph;
  const scope = new TypedScope(env, { schema: instanceSchemaOf(graph) ?? UNTYPED });
  const compiled = compileRolloutPolicy(
    rollout,
    (expression, path) => scope.check(expression, { path, expected: { type: "boolean" } }).issues,
  );
  const issues = [...result.issues, ...compiled.issues];
  if (graph === undefined || compiled.policy === undefined || hasErrors(issues)) return { issues };
  const withPolicy: CompiledGraph =
    graph.dialect === "cel"
      ? { ...graph, crd: withRevisionStatus(graph.crd), rollout: compiled.policy }
      : { ...graph, rollout: compiled.policy };
  return { graph: deepFreeze(withPolicy), issues };
}

/**
 * Under a rollout each instance records the revision it runs in `status.graphRevision`: the
 * generated CRD declares it, so the API server keeps it. Only then — a CRD of an RGD without a
 * policy is exactly as before.
 */
function withRevisionStatus(crd: CustomResourceDefinition): CustomResourceDefinition {
  const copy = JSON.parse(JSON.stringify(crd)) as CustomResourceDefinition;
  for (const version of copy.spec.versions) {
    const status = version.schema.openAPIV3Schema.properties?.status;
    if (status?.properties !== undefined && !Object.hasOwn(status.properties, GRAPH_REVISION_STATUS.field))
      status.properties[GRAPH_REVISION_STATUS.field] = structuredClone(REVISION_STATUS_SCHEMA);
  }
  return copy;
}

function instanceSchemaOf(graph: CompiledGraph | undefined): OpenApiSchema | undefined {
  if (graph?.dialect !== "cel") return undefined;
  const hub = graph.crd.spec.versions.find((v) => v.name === graph.instance.version);
  return hub?.schema.openAPIV3Schema;
}

function compileDialect(rgd: unknown, options: CompileRgdOptions & { env: KroCelEnvironment }): CompileResult {
  if (!isRecord(rgd))
    return { issues: [error("rgd.not-an-object", [], "a ResourceGraphDefinition must be a YAML/JSON object")] };
  const shape: Issue[] = [];
  if (rgd.apiVersion !== "kro.run/v1alpha1")
    shape.push(
      error(
        "rgd.api-version",
        ["apiVersion"],
        `apiVersion must be kro.run/v1alpha1, got ${JSON.stringify(rgd.apiVersion)}`,
      ),
    );
  if (rgd.kind !== "ResourceGraphDefinition")
    shape.push(error("rgd.kind", ["kind"], `kind must be ResourceGraphDefinition, got ${JSON.stringify(rgd.kind)}`));
  if (!isRecord(rgd.spec)) return { issues: [...shape, error("rgd.spec-missing", ["spec"], "spec is required")] };
  const spec = specWithoutNulls(rgd.spec);
  const read = { ...rgd, spec };
  const cel = spec.schema !== undefined || spec.resources !== undefined;
  const template =
    spec.resourceKind !== undefined || spec.childResources !== undefined || spec.statusMappings !== undefined;
  if (cel && template) {
    return {
      issues: [
        ...shape,
        error(
          "rgd.mixed-dialects",
          ["spec"],
          "spec mixes the CEL dialect (schema, resources) with the template dialect (resourceKind, childResources, statusMappings); use one",
        ),
      ],
    };
  }
  if (template) {
    const result = compileTemplateRgd(read, spec, options.resolver ? { resolver: options.resolver } : {});
    return shape.length === 0 ? result : { issues: [...shape, ...result.issues] };
  }
  if (isRecord(spec.schema)) shape.push(...unknownSchemaFields(spec.schema));
  const result = compileCelRgd(read, spec, {
    env: options.env,
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.unknownKinds === undefined ? {} : { unknownKinds: options.unknownKinds }),
  });
  return shape.length === 0 ? result : { issues: [...shape, ...result.issues] };
}
