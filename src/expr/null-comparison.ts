/**
 * `x == null` / `x != null` where cel-go allows them. cel-go's checker lets `null` unify with
 * message (struct) types, well-known types (timestamp, duration) and dyn, so Kubernetes CEL
 * accepts `job.status.completionTime != null`; cel-js only knows `null == null` and dyn. These
 * overloads give it the same rule: structs (registered per schema by SchemaTypeRegistry) and the
 * two well-known types. Strings, numbers, lists and maps stay non-nullable, as in cel-go.
 */
import type { Environment } from "@marcbachmann/cel-js";

const WELL_KNOWN = ["google.protobuf.Timestamp", "google.protobuf.Duration"] as const;

/** At runtime a present value is never equal to null; a JSON null only meets `null == null`. */
const equalsNull = (a: unknown, b: unknown): boolean => a === b;

export function registerNullComparison(env: Environment, typeName: string): void {
  // cel-js derives `!=` and the mirrored `null == T` from this one overload.
  env.registerOperator(`${typeName} == null`, equalsNull);
}

export function registerWellKnownNullComparisons(env: Environment): void {
  for (const name of WELL_KNOWN) registerNullComparison(env, name);
}
