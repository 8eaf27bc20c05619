/**
 * A JSON Schema (draft-07) of RGD files, for editors that validate YAML by schema alone (the
 * yaml-language-server of VS Code, Neovim, JetBrains): read from the RGD CRD's own OpenAPI schema
 * (rgd-crd.ts), so the two cannot drift. Both dialects, since one CRD holds both. What JSON Schema
 * cannot say is left to the API server and `kro validate`: the CRD's CEL rules (which dialect,
 * immutable fields) and everything inside free-form fields (`spec.schema.spec`, templates).
 * A field the CRD does not list is refused here, as `kubectl apply`'s strict field validation does.
 */
import { rgdCustomResourceDefinition, type JSONSchemaProps } from "./rgd-crd.js";

type JsonSchema = Record<string, unknown>;

function convert(schema: JSONSchemaProps): JsonSchema {
  const out: JsonSchema = {};
  for (const key of ["type", "description", "format", "pattern", "enum", "default", "minimum", "maximum"] as const)
    if (schema[key] !== undefined) out[key] = schema[key];
  for (const key of ["minLength", "maxLength", "maxItems", "minProperties", "maxProperties", "required"] as const)
    if (schema[key] !== undefined) out[key] = schema[key];
  if (schema["x-kubernetes-int-or-string"] === true) out.anyOf = [{ type: "integer" }, { type: "string" }];
  if (schema.items !== undefined) out.items = convert(schema.items);
  if (schema["x-kubernetes-list-type"] === "set") out.uniqueItems = true;
  if (schema.properties !== undefined)
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, convert(v)]));
  if (schema.additionalProperties !== undefined) out.additionalProperties = convert(schema.additionalProperties);
  else if (schema.type === "object" && schema["x-kubernetes-preserve-unknown-fields"] !== true)
    out.additionalProperties = false;
  return out;
}

export function rgdJsonSchema(): JsonSchema {
  const crd = rgdCustomResourceDefinition();
  const versions = crd.spec.versions as {
    name: string;
    storage: boolean;
    schema: { openAPIV3Schema: JSONSchemaProps };
  }[];
  const version = versions.find((v) => v.storage) ?? versions[0];
  const root = version?.schema.openAPIV3Schema;
  const spec = root?.properties?.spec;
  if (root === undefined || spec === undefined) throw new Error("the RGD CRD has no spec schema");
  const group = crd.spec.group as string;
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "ResourceGraphDefinition",
    description: `${root.description ?? ""} Generated from the kro-ts RGD CRD (${group}/${version?.name ?? ""}); regenerate with \`npm run refresh:json-schema\`.`,
    type: "object",
    required: ["apiVersion", "kind", "metadata", "spec"],
    properties: {
      apiVersion: { const: `${group}/${version?.name ?? ""}` },
      kind: { const: "ResourceGraphDefinition" },
      metadata: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string", minLength: 1 } },
      },
      spec: convert(spec),
      status: { type: "object" },
    },
    additionalProperties: false,
  };
}
