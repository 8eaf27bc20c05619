/**
 * The CEL type of one whole `${…}`, checked as the compiler checks it: `schema` as the instance,
 * each resource id as its kind (a list of it for a collection), forEach variables and `each`
 * where they are in scope. Hover shows it; undefined while the expression does not type-check
 * (the diagnostics say why).
 */
import { TypedScope, type KroCelEnvironment, type OpenApiSchema } from "../../expr/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import { chainSchema, type LocalNames } from "./field-schemas.js";
import type { RgdIndex } from "./rgd-index.js";

const UNTYPED: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };

/** Declaring a kind's types is the costly part: one base scope per indexed RGD, reused by every hover. */
const baseScopes = new WeakMap<RgdIndex, TypedScope>();

function baseScope(rgd: RgdIndex, resolver: SchemaResolver, env: KroCelEnvironment): TypedScope {
  const cached = baseScopes.get(rgd);
  if (cached !== undefined) return cached;
  const declared: Record<string, OpenApiSchema> = { schema: chainSchema(rgd, resolver, ["schema"]) ?? UNTYPED };
  for (const resource of rgd.resources) {
    const kind = chainSchema(rgd, resolver, [resource.id]) ?? UNTYPED;
    declared[resource.id] = resource.iterators.length > 0 ? { type: "array", items: kind } : kind;
  }
  const scope = new TypedScope(env, declared);
  baseScopes.set(rgd, scope);
  return scope;
}

/** The type of `source` as CEL writes it (`int`, `list<string>`, `optional<int>`); objects as `object`. */
export function expressionType(
  rgd: RgdIndex,
  resolver: SchemaResolver,
  env: KroCelEnvironment,
  source: string,
  locals: LocalNames,
): string | undefined {
  const base = baseScope(rgd, resolver, env);
  const scope =
    locals.size === 0
      ? base
      : base.with(Object.fromEntries([...locals].map(([name, schema]) => [name, schema ?? UNTYPED])));
  const checked = scope.check(source, { estimateCost: false });
  // Struct types get generated names (KroT…): what a reader knows them as is an object.
  return checked.type === undefined ? undefined : checked.type.replace(/\bKroT\w*/g, "object");
}
