/**
 * The CEL functions completion offers, read from the very environment the compiler checks with
 * (cel-js's own list of registered overloads), so an offered function is one that compiles and
 * its signatures are the ones the type checker applies. Three places call functions: a global
 * (`size(x)`, `semver("1.2.3")`), a namespace (`lists.range(3)`, `optional.of(x)`) and a member
 * of a value of a type (`name.startsWith("a")`, `items.map(i, i.name)`).
 */
import type { KroCelEnvironment, OpenApiSchema } from "../../expr/index.js";

export interface CelFunction {
  readonly name: string;
  /** Every overload, as written in a call: `string.startsWith(string): bool`. */
  readonly signatures: readonly string[];
}

/** What the functions of one call place are keyed by. */
export interface CelFunctionCatalog {
  readonly globals: readonly CelFunction[];
  /** Namespace name (`lists`) → its functions. */
  readonly namespaces: ReadonlyMap<string, readonly CelFunction[]>;
  /** Receiver type as cel-js writes it (`string`, `list<dyn>`, `optional<A>`) → its members. */
  readonly members: ReadonlyMap<string, readonly CelFunction[]>;
}

/**
 * Names the compiler rewrites calls into (a kro-compatible spelling compiled to an internal
 * overload): never written by hand, so never offered.
 */
const INTERNAL = /^kro[A-Z]/;

/** Macro arguments are expressions, not values: name them for what a person writes there. */
function readableParams(types: readonly string[]): string[] {
  const macroArgs = types.filter((t) => t === "ast").length;
  let seen = 0;
  return types.map((type) => {
    if (type !== "ast") return type;
    seen++;
    if (macroArgs === 1) return "expr";
    return seen === macroArgs ? "expr" : seen === 1 ? "x" : "y";
  });
}

function group(entries: readonly { name: string; signature: string }[]): CelFunction[] {
  const byName = new Map<string, string[]>();
  for (const { name, signature } of entries) {
    const list = byName.get(name) ?? [];
    if (!list.includes(signature)) list.push(signature);
    byName.set(name, list);
  }
  return [...byName].sort(([a], [b]) => a.localeCompare(b)).map(([name, signatures]) => ({ name, signatures }));
}

export function celFunctionCatalog(env: KroCelEnvironment): CelFunctionCatalog {
  const definitions = env.typed.getDefinitions();
  // Namespaces are constants of a private type: `lists` has type KroNsLists.
  const namespaceOfType = new Map(definitions.variables.map((v) => [v.type, v.name]));
  const globals: { name: string; signature: string }[] = [];
  const namespaces = new Map<string, { name: string; signature: string }[]>();
  const members = new Map<string, { name: string; signature: string }[]>();
  for (const fn of definitions.functions) {
    if (INTERNAL.test(fn.name)) continue;
    const params = readableParams(fn.params.map((p) => p.type)).join(", ");
    const receiver = fn.receiverType;
    const namespace = receiver === null ? undefined : namespaceOfType.get(receiver);
    const call = `${fn.name}(${params}): ${fn.returnType}`;
    if (receiver === null) globals.push({ name: fn.name, signature: call });
    else if (namespace !== undefined)
      namespaces.set(namespace, [
        ...(namespaces.get(namespace) ?? []),
        { name: fn.name, signature: `${namespace}.${call}` },
      ]);
    else members.set(receiver, [...(members.get(receiver) ?? []), { name: fn.name, signature: `${receiver}.${call}` }]);
  }
  return {
    globals: group(globals),
    namespaces: new Map([...namespaces].map(([name, list]) => [name, group(list)])),
    members: new Map([...members].map(([type, list]) => [type, group(list)])),
  };
}

/** The CEL types a value of `schema` has, as receiver types are written (most specific first). */
function receiverTypesOf(schema: OpenApiSchema): string[] {
  const extra = schema as { additionalProperties?: unknown };
  switch (schema.type) {
    case "string":
      return schema.format === "date-time" ? ["google.protobuf.Timestamp", "string"] : ["string"];
    case "array": {
      const item = schema.items?.type;
      const typed =
        item === "string"
          ? ["list<string>"]
          : item === "integer"
            ? ["list<int>"]
            : item === "number"
              ? ["list<double>"]
              : [];
      return [...typed, "list<A>", "list<dyn>"];
    }
    case "object":
      // A struct with declared fields has no map functions; a map (or free-form object) has.
      return schema.properties !== undefined && typeof extra.additionalProperties !== "object"
        ? []
        : ["map<K, V>", "map<dyn, dyn>"];
    default:
      return [];
  }
}

/** The member functions callable on a value of `schema`, and on an optional when `optional`. */
export function memberFunctions(
  catalog: CelFunctionCatalog,
  schema: OpenApiSchema | undefined,
  optional: boolean,
): CelFunction[] {
  const types = [
    ...(optional ? ["optional<A>", "optional<dyn>"] : []),
    ...(schema === undefined ? [] : receiverTypesOf(schema)),
  ];
  const found = new Map<string, string[]>();
  for (const type of types)
    for (const fn of catalog.members.get(type) ?? [])
      found.set(fn.name, [...(found.get(fn.name) ?? []), ...fn.signatures]);
  return [...found].map(([name, signatures]) => ({ name, signatures }));
}
