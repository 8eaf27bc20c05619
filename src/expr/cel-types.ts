/**
 * OpenAPI v3 schema → cel-js declared types, and a CEL type name → OpenAPI schema (so CRD synthesis
 * can infer status field types). Objects with properties become named struct types (prefixed, one
 * per schema node); maps, lists and scalars map structurally; schemaless parts become `dyn`.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { registerNullComparison } from "./null-comparison.js";
import { isSchemaless, mapValueSchema, type OpenApiSchema } from "./openapi-schema.js";

/** Kubernetes' SchemaDeclType: string formats that CEL sees as their own types. */
function stringType(format: string | undefined): string {
  switch (format) {
    case "byte":
      return "bytes";
    case "date":
    case "date-time":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    default:
      return "string";
  }
}

/** Registers the types for `schema` and returns the CEL type name to declare the variable with. */
export class SchemaTypeRegistry {
  readonly #env: Environment;
  readonly #structs: Map<string, OpenApiSchema>;
  /** Struct type already registered for a schema object: resolvers hand out one object per kind, so
   * a hundred Deployments register the Deployment types once (registration dominates compile time). */
  readonly #byObject: WeakMap<OpenApiSchema, string>;
  #counter: number;

  constructor(env: Environment, parent?: SchemaTypeRegistry) {
    this.#env = env;
    this.#structs = new Map(parent === undefined ? [] : parent.#structs);
    this.#byObject = parent === undefined ? new WeakMap() : parent.#byObject;
    this.#counter = parent === undefined ? 0 : parent.#counter;
  }

  /** A registry for a clone of this registry's environment: it knows (and will not re-register) this one's types. */
  fork(env: Environment): SchemaTypeRegistry {
    return new SchemaTypeRegistry(env, this);
  }

  /** The OpenAPI schema of a struct type registered here. */
  structSchema(name: string): OpenApiSchema | undefined {
    return this.#structs.get(name);
  }

  typeOf(schema: OpenApiSchema | undefined, hint: string): string {
    if (schema === undefined || isSchemaless(schema)) return "dyn";
    switch (schema.type) {
      case "integer":
        return "int";
      case "number":
        return "double";
      case "boolean":
        return "bool";
      case "string":
        return stringType(schema.format);
      case "array":
        return `list<${this.typeOf(schema.items, `${hint}_item`)}>`;
      default:
        break;
    }
    if (schema.properties !== undefined && Object.keys(schema.properties).length > 0) {
      const known = this.#byObject.get(schema);
      // the name must be registered in this environment for this very schema (forks share the map)
      if (known !== undefined && this.#structs.get(known) === schema) return known;
      const name = `KroT${this.#counter++}${hint.replace(/[^A-Za-z0-9]/g, "")}`;
      const fields: Record<string, string> = {};
      for (const [key, child] of Object.entries(schema.properties)) fields[key] = this.typeOf(child, `${hint}_${key}`);
      this.#env.registerType(name, { fields });
      registerNullComparison(this.#env, name);
      this.#structs.set(name, schema);
      this.#byObject.set(schema, name);
      return name;
    }
    const values = mapValueSchema(schema);
    if (values === true || schema["x-kubernetes-preserve-unknown-fields"] === true)
      return values === true ? "map<string, dyn>" : "dyn";
    if (values !== undefined) return `map<string, ${this.typeOf(values, `${hint}_value`)}>`;
    return "map<string, dyn>";
  }
}

/** Splits `map<string, list<int>>` into its name and top-level parameters. */
export function parseTypeName(name: string): { base: string; params: string[] } {
  const open = name.indexOf("<");
  if (open < 0 || !name.endsWith(">")) return { base: name.trim(), params: [] };
  const inner = name.slice(open + 1, -1);
  const params: string[] = [];
  let depth = 0,
    start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0) {
      params.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  params.push(inner.slice(start).trim());
  return { base: name.slice(0, open).trim(), params };
}

const PRESERVE: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };

/** CEL type name (as cel-js prints it) → OpenAPI schema. */
export function celTypeToSchema(name: string, structs?: SchemaTypeRegistry): OpenApiSchema {
  const { base, params } = parseTypeName(name);
  switch (base) {
    case "int":
      return { type: "integer", format: "int64" };
    case "uint":
      return { type: "integer" };
    case "double":
      return { type: "number" };
    case "bool":
      return { type: "boolean" };
    case "string":
      return { type: "string" };
    case "bytes":
      return { type: "string", format: "byte" };
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time" };
    case "google.protobuf.Duration":
      return { type: "string" };
    case "list":
      return { type: "array", items: params[0] === undefined ? PRESERVE : celTypeToSchema(params[0], structs) };
    case "map":
      return {
        type: "object",
        additionalProperties: params[1] === undefined ? PRESERVE : celTypeToSchema(params[1], structs),
      };
    case "optional":
      return params[0] === undefined ? PRESERVE : celTypeToSchema(params[0], structs);
    default:
      return structs?.structSchema(base) ?? PRESERVE;
  }
}
