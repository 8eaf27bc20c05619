/**
 * A child template's literal values against its kind's schema, as kro's parser checks them while
 * it looks for expressions (kro pkg/graph/parser/parser.go, parseResource / parseObject /
 * parseArray / parseString / parseScalarTypes): a field the schema does not know is rejected, and
 * so is a literal of the wrong JSON type (`replicas: three`). `${…}` standing alone may produce any
 * type (the type checker judges it); a string with `${…}` inside is a string. Below
 * x-kubernetes-preserve-unknown-fields nothing is checked.
 */
import { error, formatPath as formatFieldPath, type Issue, type IssuePath } from "../../diag/index.js";
import { didYouMean, extractExpressions, type OpenApiSchema } from "../../expr/index.js";

export const TEMPLATE_SCHEMA_CODE = "rgd.template-schema";

const ANY = "any";

/** kro's getExpectedTypes: the JSON types a field accepts; [any] where anything goes. */
function expectedTypes(schema: OpenApiSchema): string[] {
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) return [ANY];
  if (schema["x-kubernetes-int-or-string"] === true) return ["string", "integer"];
  const union = schema.oneOf ?? schema.anyOf;
  if (union !== undefined && union.length > 0) {
    const types = new Set<string>();
    for (const sub of union) {
      if ((sub.required?.length ?? 0) > 0) types.add("object");
      if (sub.type !== undefined) types.add(sub.type);
    }
    if (types.size > 0) return [...types];
  }
  if (schema.type !== undefined && schema.type !== "") return [schema.type];
  // kro errors ("unknown schema type") on a schema with no type at all; such schemas only come from
  // hand-written CRDs, where accepting is kinder than a message about the CRD's own schema.
  return [ANY];
}

function jsonTypeName(value: unknown): string {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "float64";
  return typeof value;
}

function fieldSchema(schema: OpenApiSchema, key: string): OpenApiSchema | undefined {
  const named = schema.properties?.[key];
  if (named !== undefined) return named;
  const extra = schema.additionalProperties;
  if (typeof extra === "object") return extra;
  return extra === true ? {} : undefined;
}

/** Every literal in `template` that `schema` does not allow, one issue each (paths relative to `base`). */
export function checkTemplateLiterals(template: unknown, schema: OpenApiSchema, base: IssuePath): Issue[] {
  const issues: Issue[] = [];
  const visit = (value: unknown, node: OpenApiSchema, path: IssuePath): void => {
    if (value === null || value === undefined) return;
    const expected = expectedTypes(node);
    if (expected.includes(ANY) && node["x-kubernetes-preserve-unknown-fields"] === true) return;
    const wrongType = (got: string): void => {
      issues.push(
        error(
          TEMPLATE_SCHEMA_CODE,
          [...base, ...path],
          `expected ${expected.join(" or ")} type for path ${formatFieldPath(path)}, got ${got}`,
        ),
      );
    };
    if (Array.isArray(value)) {
      if (!expected.includes("array") && !expected.includes(ANY)) {
        wrongType("array");
        return;
      }
      const items = node.items;
      if (items === undefined) return;
      value.forEach((item, i) => {
        visit(item, items, [...path, i]);
      });
      return;
    }
    if (typeof value === "object") {
      if (!expected.includes("object") && !expected.includes(ANY) && node.additionalProperties !== true) {
        wrongType("object");
        return;
      }
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        const childSchema = fieldSchema(node, key);
        if (childSchema === undefined) {
          if (node.properties !== undefined)
            issues.push(
              error(
                TEMPLATE_SCHEMA_CODE,
                [...base, ...path, key],
                `unknown field ${JSON.stringify(key)}: schema not found for field ${formatFieldPath([...path, key])}${didYouMean(key, Object.keys(node.properties))}`,
              ),
            );
          continue;
        }
        visit(child, childSchema, [...path, key]);
      }
      return;
    }
    if (typeof value === "string") {
      if (value.includes("${") && extractExpressions(value).standalone) return;
      if (!expected.includes("string") && !expected.includes(ANY)) wrongType("string");
      return;
    }
    if (expected.includes(ANY)) return;
    const ok = expected.some(
      (t) =>
        (t === "number" && typeof value === "number") ||
        (t === "integer" && typeof value === "number" && Number.isInteger(value)) ||
        (t === "boolean" && typeof value === "boolean"),
    );
    if (!ok) wrongType(jsonTypeName(value));
  };
  visit(template, schema, []);
  return issues;
}
