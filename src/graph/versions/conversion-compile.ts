/**
 * Compiles one direction of a declared conversion (`conversion.toHub` or `conversion.fromHub`):
 * a partial object of the target version whose leaves are `${…}` expressions over `self` (the
 * object at the source version) or constants. Each expression is type-checked against the source
 * schema and must fit the target field it writes; the fields it reads are returned so that the
 * lossless check can tell which source fields the direction carries.
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import {
  compileField,
  findExpressions,
  referencedPaths,
  TypedScope,
  type FoundField,
  type KroCelEnvironment,
  type OpenApiSchema,
} from "../../expr/index.js";
import type { JSONSchemaProps } from "../../schema/index.js";
import { isRecord } from "../is-record.js";
import type { ConversionDirection, ConversionLiteral } from "./compiled-version.js";
import { dotted, fieldSchema, type FieldPath } from "./schema-leaves.js";

export interface DirectionInput {
  readonly env: KroCelEnvironment;
  readonly map: unknown;
  /** Where the map sits in the RGD, e.g. [spec, schema, versions, 0, conversion, toHub]. */
  readonly path: IssuePath;
  readonly source: { readonly name: string; readonly spec: JSONSchemaProps };
  readonly target: { readonly name: string; readonly spec: JSONSchemaProps };
}

export interface CompiledDirection {
  readonly direction: ConversionDirection;
  /** Source spec paths the expressions read (below `self.spec`); [] means the whole spec. */
  readonly reads: readonly FieldPath[];
  /** Target spec paths the direction writes. */
  readonly writes: readonly FieldPath[];
  readonly issues: readonly Issue[];
}

const METADATA: OpenApiSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

export function objectSchema(spec: JSONSchemaProps): OpenApiSchema {
  return {
    type: "object",
    properties: { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: METADATA, spec: spec },
  };
}

function literalsOf(value: unknown, path: string[], out: ConversionLiteral[]): void {
  if (typeof value === "string" && value.includes("${")) return; // an expression field
  if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) literalsOf(v, [...path, k], out);
    return;
  }
  out.push({ path, value });
}

export function compileDirection(input: DirectionInput): CompiledDirection {
  const empty: ConversionDirection = { fields: [], literals: [] };
  if (input.map === undefined) return { direction: empty, reads: [], writes: [], issues: [] };
  const issues: Issue[] = [];
  if (!isRecord(input.map) || Object.keys(input.map).some((k) => k !== "spec")) {
    return {
      direction: empty,
      reads: [],
      writes: [],
      issues: [
        error(
          "rgd.conversion-invalid",
          input.path,
          `a conversion is a partial ${input.target.name} object with only a spec: its fields are \${…} expressions over self (the ${input.source.name} object)`,
        ),
      ],
    };
  }
  const found = findExpressions(input.map, {}, []);
  issues.push(...found.issues.map((i) => ({ ...i, path: [...input.path, ...i.path] })));
  const literals: ConversionLiteral[] = [];
  literalsOf(input.map, [], literals);
  const scope = new TypedScope(input.env, { self: objectSchema(input.source.spec) });
  const reads: FieldPath[] = [];
  const writes: FieldPath[] = [];
  const fields: FoundField[] = [];
  const targetOf = (path: readonly (string | number)[], where: IssuePath): JSONSchemaProps | undefined => {
    const specPath = path.slice(1).map(String);
    const schema = fieldSchema(input.target.spec, specPath);
    if (schema === undefined)
      issues.push(
        error(
          "rgd.conversion-unknown-field",
          where,
          `${dotted(path.map(String))} is not a field of ${input.target.name}`,
        ),
      );
    else writes.push(specPath);
    return schema;
  };
  for (const literal of literals) {
    if (literal.path.length < 2) {
      issues.push(
        error("rgd.conversion-invalid", [...input.path, ...literal.path], "spec must be an object of fields"),
      );
      continue;
    }
    targetOf(literal.path, [...input.path, ...literal.path]);
  }
  for (const field of found.fields) {
    const where = [...input.path, ...field.path];
    const expected = targetOf(field.path, where);
    if (expected === undefined) continue;
    try {
      const compiled = compileField(input.env, field.text, field.segments);
      issues.push(...compiled.check(scope, { path: where, expected: expected }).issues);
      for (const expression of compiled.expressions) {
        for (const read of referencedPaths(input.env, expression.source).get("self") ?? []) {
          if (read.length === 0 || read[0] === "spec") reads.push(read.slice(1));
        }
      }
      fields.push(field);
    } catch (e) {
      issues.push(error("expr.parse-error", where, e instanceof Error ? e.message : String(e)));
    }
  }
  return { direction: { fields, literals }, reads, writes, issues };
}
