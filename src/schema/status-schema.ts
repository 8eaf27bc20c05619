/**
 * The status schema of an instance: the author's status fields, each with the OpenAPI type the
 * expression layer inferred for its CEL expression, plus kro's own `state` and `conditions`.
 * Fields arrive as paths (segments, so keys containing dots stay unambiguous) because that is
 * how the graph layer walks `spec.schema.status`.
 */
import { STATUS_RECORD } from "../api/index.js";
import { error, type Issue, type IssuePath } from "../diag/index.js";
import { canonicalizeSchema } from "./canonical-schema.js";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import type { JSONSchemaProps } from "./openapi-types.js";

/** One leaf of `spec.schema.status` and the schema inferred for its expression. */
export interface InferredStatusField {
  /** Path below `status`, e.g. ["network", "url"]; a number is a list index (`ips: ["${a}", "${b}"]`). */
  readonly path: readonly (string | number)[];
  readonly schema: JSONSchemaProps;
}

export const DEFAULT_STATUS_PATH: IssuePath = ["spec", "schema", "status"];

const STRING: JSONSchemaProps = { type: "string" };

/** kro's standard condition shape, shared by instances (§6.10). */
export const CONDITIONS_SCHEMA: JSONSchemaProps = {
  type: "array",
  items: {
    type: "object",
    properties: {
      lastTransitionTime: STRING,
      message: STRING,
      observedGeneration: { type: "integer" },
      reason: STRING,
      status: STRING,
      type: STRING,
    },
  },
};
export const STATE_SCHEMA: JSONSchemaProps = { type: "string" };
export const OBSERVED_GENERATION_SCHEMA: JSONSchemaProps = { type: "integer" };
export const STATUS_RECORD_SCHEMA: JSONSchemaProps = { type: "string", description: STATUS_RECORD.description };

/** The schema the generated CRD uses for a field whose expression type is dynamic/unknown. */
export const UNKNOWN_TYPE_SCHEMA: JSONSchemaProps = { "x-kubernetes-preserve-unknown-fields": true };

export interface StatusSchemaResult {
  readonly schema: JSONSchemaProps;
  readonly issues: readonly Issue[];
}

/** `items` is the one element schema of an array node: every index writes it (kro: the last one wins). */
interface Node {
  leaf?: JSONSchemaProps;
  children: Map<string, Node>;
  items?: Node;
}

export function buildStatusSchema(
  fields: readonly InferredStatusField[],
  path: IssuePath = DEFAULT_STATUS_PATH,
): StatusSchemaResult {
  const issues: Issue[] = [];
  const root: Node = { children: new Map() };
  for (const field of fields) {
    const at = [...path, ...field.path];
    if (field.path.length === 0) {
      issues.push(error(SCHEMA_ISSUE_CODES.statusPathConflict, at, "a status field needs a name"));
      continue;
    }
    let node = root;
    let conflict = false;
    for (const segment of field.path) {
      if (node.leaf !== undefined) conflict = true;
      if (typeof segment === "number") {
        if (node.children.size > 0) conflict = true;
        node = node.items ??= { children: new Map() };
        continue;
      }
      if (node.items !== undefined) conflict = true;
      let next = node.children.get(segment);
      if (next === undefined) node.children.set(segment, (next = { children: new Map() }));
      node = next;
    }
    const element = typeof field.path[field.path.length - 1] === "number";
    if (conflict || node.children.size > 0 || node.items !== undefined || (node.leaf !== undefined && !element)) {
      issues.push(
        error(
          SCHEMA_ISSUE_CODES.statusPathConflict,
          at,
          "status field is declared both as a value and as an object (or twice)",
        ),
      );
      continue;
    }
    // kro (pkg/graph/schema/field_descriptor.go, addFieldToSchemaSegments): each index writes the
    // element schema, so the last element's type is the array's item type.
    node.leaf = structuredClone(field.schema);
  }
  const schema = toSchema(root);
  const properties = (schema.properties ??= {});
  // Author fields win over kro's (kro: "unless the author defined the same key").
  if (!Object.hasOwn(properties, "state")) properties.state = { ...STATE_SCHEMA };
  if (!Object.hasOwn(properties, "conditions")) properties.conditions = structuredClone(CONDITIONS_SCHEMA);
  // kro-ts: the generation the status describes (kstatus; runtime/kstatus.ts). An author field of that name wins.
  if (!Object.hasOwn(properties, "observedGeneration"))
    properties.observedGeneration = { ...OBSERVED_GENERATION_SCHEMA };
  // kro-ts: where the controller records what the instance owns (api/constants.ts STATUS_RECORD).
  // An author field of that name wins, and the controller then keeps the record in its annotation.
  if (!Object.hasOwn(properties, STATUS_RECORD.field)) properties[STATUS_RECORD.field] = { ...STATUS_RECORD_SCHEMA };
  return { schema: canonicalizeSchema(schema), issues };
}

function toSchema(node: Node): JSONSchemaProps {
  if (node.leaf !== undefined) return node.leaf;
  if (node.items !== undefined) return { type: "array", items: toSchema(node.items) };
  const entries = [...node.children].map(([name, child]): [string, JSONSchemaProps] => [name, toSchema(child)]);
  return { type: "object", properties: Object.fromEntries(entries) };
}

/**
 * Whether every version of a CRD keeps the controller's status record: a CRD we synthesized does,
 * unless an author status field took the name; a CRD from elsewhere (an older release, a user's)
 * would prune it, so the record stays in the annotation there.
 */
export function keepsStatusRecord(crd: {
  readonly spec?: {
    readonly versions?: readonly {
      readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
      readonly subresources?: { readonly status?: unknown };
    }[];
  };
}): boolean {
  const versions = crd.spec?.versions ?? [];
  return (
    versions.length > 0 &&
    versions.every((version) => {
      const field = version.schema?.openAPIV3Schema?.properties?.status?.properties?.[STATUS_RECORD.field];
      return (
        version.subresources?.status !== undefined &&
        field?.type === "string" &&
        field.description === STATUS_RECORD.description
      );
    })
  );
}
