/**
 * Naming rules of the CEL dialect (docs/reference/kro-reference.md §2.3, §5 step 1): resource ids
 * and forEach iterator names are CEL variables, so they must be lowerCamelCase, unique, and not
 * reserved.
 */
import { error, type Issue, type IssuePath } from "../diag/index.js";

export const RESERVED_IDS: ReadonlySet<string> = new Set([
  "apiVersion",
  "context",
  "dependency",
  "dependencies",
  "each",
  "externalRef",
  "externalReference",
  "externalRefs",
  "externalReferences",
  "graph",
  "instance",
  "item",
  "items",
  "kind",
  "kro",
  "metadata",
  "namespace",
  "object",
  "resource",
  "resourcegraphdefinition",
  "resourceGraphDefinition",
  "resources",
  "root",
  "runtime",
  "schema",
  "self",
  "serviceAccountName",
  "spec",
  "status",
  "this",
  "variables",
  "vars",
  "version",
  // CEL reserved words
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "return",
  "var",
  "void",
  "while",
]);

const LOWER_CAMEL = /^[a-z][a-zA-Z0-9]*$/;
const UPPER_CAMEL = /^[A-Z][a-zA-Z0-9]{0,62}$/;

/** Max forEach iterators per resource (kro's --rgd-max-collection-dimension-size default). */
export const MAX_COLLECTION_DIMENSIONS = 10;
/** kro's --rgd-max-collection-size: the runtime refuses a forEach expanding to more items. */
export const MAX_COLLECTION_SIZE = 1000;

export function checkKind(kind: unknown, path: IssuePath): Issue[] {
  if (typeof kind !== "string" || kind === "") return [error("rgd.kind-missing", path, "kind is required")];
  if (!UPPER_CAMEL.test(kind))
    return [error("rgd.kind-invalid", path, `kind "${kind}" must be UpperCamelCase (${UPPER_CAMEL.source})`)];
  return [];
}

export function checkIdentifier(what: "resource id" | "forEach iterator", name: unknown, path: IssuePath): Issue[] {
  if (typeof name !== "string" || name === "") return [error("rgd.id-missing", path, `${what} is required`)];
  if (!LOWER_CAMEL.test(name))
    return [error("rgd.id-invalid", path, `${what} "${name}" must be lowerCamelCase (${LOWER_CAMEL.source})`)];
  if (RESERVED_IDS.has(name)) return [error("rgd.id-reserved", path, `${what} "${name}" is a reserved word`)];
  return [];
}

/** Every id must be unique; the message names both places. */
export function checkUniqueIds(ids: readonly { id: string; path: IssuePath }[]): Issue[] {
  const first = new Map<string, IssuePath>();
  const issues: Issue[] = [];
  for (const { id, path } of ids) {
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, path);
    else
      issues.push(error("rgd.id-duplicate", path, `duplicate resource id "${id}" (also used at ${earlier.join(".")})`));
  }
  return issues;
}
