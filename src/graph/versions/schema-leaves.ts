/**
 * Schema walking for conversions: the leaves of a spec schema (what a conversion must carry
 * somewhere), the schema at a path, and whether a path is a prefix of another. Free-form parts
 * (preserve-unknown-fields without properties, maps, lists) count as one leaf: a conversion
 * carries them whole or not at all.
 */
import type { JSONSchemaProps } from "../../schema/index.js";

export type FieldPath = readonly string[];

export function schemaLeaves(schema: JSONSchemaProps, path: FieldPath = []): FieldPath[] {
  const props = schema.properties;
  if (props === undefined || Object.keys(props).length === 0) return path.length === 0 ? [] : [path];
  return Object.keys(props)
    .sort()
    .flatMap((name) => schemaLeaves(props[name] ?? {}, [...path, name]));
}

/** The schema at `path` below `root` (property names and map keys); undefined when there is none. */
export function fieldSchema(root: JSONSchemaProps, path: FieldPath): JSONSchemaProps | undefined {
  let node: JSONSchemaProps = root;
  for (const step of path) {
    if (node.properties?.[step] !== undefined) node = node.properties[step];
    else if (typeof node.additionalProperties === "object") node = node.additionalProperties;
    else if (node["x-kubernetes-preserve-unknown-fields"] === true)
      return { "x-kubernetes-preserve-unknown-fields": true };
    else return undefined;
  }
  return node;
}

export function isPrefix(prefix: FieldPath, path: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((step, i) => path[i] === step);
}

/** Two paths overlap when one is a prefix of the other (writing one touches the other). */
export const overlaps = (a: FieldPath, b: FieldPath): boolean => isPrefix(a, b) || isPrefix(b, a);

export const dotted = (path: FieldPath): string => path.join(".");
