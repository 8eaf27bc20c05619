/**
 * What compiling `spec.schema.versions[]` produces: each extra version of the RGD's API with its
 * own OpenAPI spec schema and the declared conversion to and from the hub (`spec.schema`, the
 * version the graph is written against). Expressions stay as source text, as in the rest of the graph.
 */
import type { FoundField } from "../../expr/index.js";
import type { JSONSchemaProps } from "../../schema/index.js";

/** A constant written in a conversion map instead of an expression (a default for a new field). */
export interface ConversionLiteral {
  readonly path: readonly string[];
  readonly value: unknown;
}

/** One direction of a conversion: the target object's fields, each an expression over `self` (the source). */
export interface ConversionDirection {
  /** Paths are rooted at the object (`["spec", "port"]`). */
  readonly fields: readonly FoundField[];
  readonly literals: readonly ConversionLiteral[];
}

export interface CompiledVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  /** The version's spec schema (its SimpleSchema, parsed). */
  readonly specSchema: JSONSchemaProps;
  readonly toHub: ConversionDirection;
  readonly fromHub: ConversionDirection;
  /**
   * Fields a direction drops on purpose, kept in an annotation of the converted object so that
   * converting back restores them (Kubernetes' round-trip convention). `version`: fields of this
   * version the hub cannot hold; `hub`: fields of the hub this version cannot hold.
   */
  readonly roundTrip: {
    readonly version: readonly (readonly string[])[];
    readonly hub: readonly (readonly string[])[];
  };
}

/** Every version of a CEL-dialect RGD's API; absent from the graph when the RGD declares one version. */
export interface ApiVersions {
  /** `spec.schema.apiVersion`: the graph reads instances at this version. */
  readonly hub: string;
  /** The version objects are stored in (the hub unless another version says `storage: true`). */
  readonly storage: string;
  readonly hubDeprecated: boolean;
  readonly hubDeprecationWarning?: string;
  /** The other versions, in author order. */
  readonly versions: readonly CompiledVersion[];
}

/** The annotation that carries round-tripped fields of `version` on an object converted away from it. */
export const roundTripAnnotation = (version: string): string => `conversion.kro.run/${version}`;
