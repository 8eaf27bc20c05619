// versions: the several versions of a CEL-dialect RGD's API (spec.schema.versions[]) and their declared
// conversions to and from the hub, compiled and checked (types both ways, no field silently lost).
// Pure: it never converts an object (runtime/conversion does) and never touches a CRD or a cluster.
export { compileVersions, type VersionsInput, type VersionsResult } from "./compile-versions.js";
export {
  roundTripAnnotation,
  type ApiVersions,
  type CompiledVersion,
  type ConversionDirection,
  type ConversionLiteral,
} from "./compiled-version.js";
export { objectSchema } from "./conversion-compile.js";
export { fieldSchema, schemaLeaves, type FieldPath } from "./schema-leaves.js";
