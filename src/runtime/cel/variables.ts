/**
 * CEL activations built from an EvaluationScope. JSON objects are converted to CEL values once per
 * object (WeakMap on the object itself): the same observed object is read by many expressions and
 * many passes. The instance is converted with the generated CRD's schema so `float` fields stay
 * doubles even when whole; child objects with their node's value schema (timestamps, durations,
 * bytes, doubles — as kro converts with the kind's schema), else by value.
 */
import { jsonToCel, type OpenApiSchema } from "../../expr/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import type { EvaluationScope } from "../dialect.js";
import type { KubeJson } from "../types.js";

const converted = new WeakMap<object, unknown>();

export function toCel(object: KubeJson, schema?: OpenApiSchema): unknown {
  let value = converted.get(object);
  if (value === undefined) {
    value = jsonToCel(object, schema);
    converted.set(object, value);
  }
  return value;
}

export function instanceSchema(graph: CompiledGraph): OpenApiSchema | undefined {
  if (graph.dialect !== "cel") return undefined;
  const version = graph.crd.spec.versions.find((v) => v.name === graph.instance.version) ?? graph.crd.spec.versions[0];
  return version?.schema.openAPIV3Schema;
}

const withoutStatus = new WeakMap<KubeJson, KubeJson>();

/** `schema` in templates is the instance minus its status (kro §4.3). */
function schemaValue(instance: KubeJson): KubeJson {
  let value = withoutStatus.get(instance);
  if (value === undefined) {
    const { status: _status, ...rest } = instance;
    value = rest;
    withoutStatus.set(instance, value);
  }
  return value;
}

export interface VariableOptions {
  /** Status and conditions see the whole instance, status included (runtime.condition(schema, …)). */
  readonly fullInstance?: boolean;
}

export function scopeVariables(
  graph: CompiledGraph,
  scope: EvaluationScope,
  options: VariableOptions = {},
): Record<string, unknown> {
  const collections = new Set(
    graph.nodes.filter((n) => n.type === "collection" || n.type === "externalCollection").map((n) => n.id),
  );
  const variables: Record<string, unknown> = {
    schema: toCel(options.fullInstance === true ? scope.instance : schemaValue(scope.instance), instanceSchema(graph)),
  };
  const valueSchemas = new Map(graph.nodes.map((n) => [n.id, n.valueSchema]));
  for (const [id, objects] of scope.observed) {
    const schema = valueSchemas.get(id);
    if (collections.has(id)) variables[id] = objects.map((o) => toCel(o, schema));
    else if (objects[0] !== undefined) variables[id] = toCel(objects[0], schema);
  }
  return variables;
}
