/**
 * Applies the markers of one field (`required=true minimum=1 …`) to the field's schema, with
 * kro's parsing and error rules per marker (§3.3). Problems are reported through `report`, the
 * schema is mutated in place (callers pass a fresh copy).
 */
import { parseDefaultValue } from "./default-value.js";
import { parseGoBool, parseGoFloat64, parseGoInt64 } from "./go-literals.js";
import { checkGoRegexp } from "./go-regexp.js";
import { SCHEMA_ISSUE_CODES, type SchemaIssueCode } from "./issue-codes.js";
import type { RawMarker } from "./marker-lexer.js";
import { LIST_TYPES, type JSONSchemaProps, type ListType } from "./openapi-types.js";
import type { TypeExpression } from "./type-expression.js";

export const MARKER_KEYS = [
  "required",
  "default",
  "description",
  "enum",
  "minimum",
  "maximum",
  "pattern",
  "minLength",
  "maxLength",
  "uniqueItems",
  "minItems",
  "maxItems",
  "immutable",
  "validation",
  "listType",
  "listMapKey",
] as const;
export type MarkerKey = (typeof MARKER_KEYS)[number];

/** Markers that accumulate instead of overriding an earlier occurrence. */
const REPEATABLE: ReadonlySet<MarkerKey> = new Set(["validation", "listMapKey"]);

export const IMMUTABLE_RULE = { rule: "self == oldSelf", message: "field is immutable" } as const;
export const VALIDATION_MESSAGE = "validation failed";

export type MarkerReporter = (code: SchemaIssueCode, message: string, severity?: "error" | "warning") => void;

export interface MarkerOutcome {
  readonly required: boolean;
}

const isMarkerKey = (key: string): key is MarkerKey => (MARKER_KEYS as readonly string[]).includes(key);

export function applyMarkers(
  markers: readonly RawMarker[],
  type: TypeExpression,
  schema: JSONSchemaProps,
  report: MarkerReporter,
): MarkerOutcome {
  let required = false;
  let defaultRaw: string | undefined;
  let uniqueItems = false;
  let listType: string | undefined;
  const listMapKeys: string[] = [];
  const seen = new Set<string>();
  const invalid = (key: string, message: string) => {
    report(SCHEMA_ISSUE_CODES.invalidMarkerValue, `marker ${key}: ${message}`);
  };
  const onlyFor = (key: string, types: readonly string[]): boolean => {
    if (schema.type !== undefined && types.includes(schema.type)) return true;
    report(
      SCHEMA_ISSUE_CODES.markerNotApplicable,
      `marker ${key} applies only to ${types.join(" and ")} fields, not ${schema.type ?? "untyped"} fields`,
    );
    return false;
  };
  const int64 = (key: string, value: string): number | undefined => {
    const parsed = parseGoInt64(value);
    if ("error" in parsed) invalid(key, parsed.error);
    return "value" in parsed ? parsed.value : undefined;
  };
  const bool = (key: string, value: string): boolean | undefined => {
    const parsed = parseGoBool(value);
    if (parsed === undefined) invalid(key, `"${value}" is not a boolean`);
    return parsed;
  };

  for (const { key, value } of markers) {
    if (!isMarkerKey(key)) {
      report(SCHEMA_ISSUE_CODES.unknownMarker, `unknown marker: ${key}`);
      continue;
    }
    if (seen.has(key) && !REPEATABLE.has(key))
      report(SCHEMA_ISSUE_CODES.duplicateMarker, `marker ${key} given more than once; the last one wins`, "warning");
    seen.add(key);
    switch (key) {
      case "required":
        required = bool(key, value) ?? required;
        break;
      case "default":
        defaultRaw = value;
        break;
      case "description":
        schema.description = value;
        break;
      case "minimum":
      case "maximum": {
        const parsed = parseGoFloat64(value);
        if ("error" in parsed) invalid(key, parsed.error);
        else schema[key] = parsed.value;
        break;
      }
      case "enum": {
        if (!onlyFor(key, ["string", "integer"])) break;
        if (value.trim() === "") {
          invalid(key, "must list at least one value");
          break;
        }
        const members = value.split(",").map((m) => m.trim());
        if (members.some((m) => m === "")) {
          invalid(key, `empty value in "${value}"`);
          break;
        }
        if (schema.type === "integer") {
          const numbers = members.map((m) => int64(key, m));
          if (numbers.every((n) => n !== undefined)) schema.enum = numbers;
        } else {
          schema.enum = members;
        }
        break;
      }
      case "pattern": {
        if (!onlyFor(key, ["string"])) break;
        if (value === "") {
          invalid(key, "must not be empty");
          break;
        }
        const problem = checkGoRegexp(value);
        if (problem !== undefined) invalid(key, `"${value}" is not a valid regular expression: ${problem}`);
        else schema.pattern = value;
        break;
      }
      case "minLength":
      case "maxLength": {
        if (!onlyFor(key, ["string"])) break;
        const n = int64(key, value);
        if (n !== undefined) schema[key] = n;
        break;
      }
      case "minItems":
      case "maxItems": {
        if (!onlyFor(key, ["array"])) break;
        const n = int64(key, value);
        if (n !== undefined) schema[key] = n;
        break;
      }
      case "uniqueItems": {
        if (!onlyFor(key, ["array"])) break;
        uniqueItems = bool(key, value) ?? uniqueItems;
        break;
      }
      case "listType": {
        if (!onlyFor(key, ["array"])) break;
        if ((LIST_TYPES as readonly string[]).includes(value)) listType = value;
        else invalid(key, `"${value}" must be one of ${LIST_TYPES.join(", ")}`);
        break;
      }
      case "listMapKey": {
        if (!onlyFor(key, ["array"])) break;
        if (value === "") invalid(key, "must name a field");
        else if (listMapKeys.includes(value)) invalid(key, `duplicate key "${value}"`);
        else listMapKeys.push(value);
        break;
      }
      case "immutable":
        if (bool(key, value) === true) addRule(schema, { ...IMMUTABLE_RULE });
        break;
      case "validation":
        if (value.trim() === "") invalid(key, "must not be empty");
        else addRule(schema, { rule: value, message: VALIDATION_MESSAGE });
        break;
    }
  }

  applyListType(schema, { uniqueItems, listType, listMapKeys }, report);
  if (defaultRaw !== undefined) {
    const parsed = parseDefaultValue(defaultRaw, type, schema);
    if ("error" in parsed) report(SCHEMA_ISSUE_CODES.invalidDefault, parsed.error);
    else schema.default = parsed.value;
  }
  return { required };
}

function addRule(schema: JSONSchemaProps, rule: { rule: string; message: string }): void {
  (schema["x-kubernetes-validations"] ??= []).push(rule);
}

/** `uniqueItems=true` is kro's spelling of `listType=set`; both may not disagree. */
function applyListType(
  schema: JSONSchemaProps,
  list: { uniqueItems: boolean; listType: string | undefined; listMapKeys: readonly string[] },
  report: MarkerReporter,
): void {
  let listType = list.listType as ListType | undefined;
  if (list.uniqueItems) {
    if (listType !== undefined && listType !== "set") {
      report(SCHEMA_ISSUE_CODES.listTypeConflict, `uniqueItems=true conflicts with listType=${listType}`);
      return;
    }
    listType = "set";
  }
  if (list.listMapKeys.length > 0 && listType !== "map") {
    report(
      SCHEMA_ISSUE_CODES.listTypeConflict,
      `listMapKey requires listType=map${listType === undefined ? "" : `, not listType=${listType}`}`,
    );
    return;
  }
  if (listType !== undefined) schema["x-kubernetes-list-type"] = listType;
  if (list.listMapKeys.length > 0) schema["x-kubernetes-list-map-keys"] = [...list.listMapKeys];
}
