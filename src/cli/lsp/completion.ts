/**
 * Completion inside `${…}`: at the start of a name, the RGD's resource ids, `schema`, the local
 * names in scope there (forEach variables, `each`), the CEL namespaces and global functions; after
 * a `.`, the fields of what the chain selects (field-schemas.ts), then the functions callable on
 * it, or a namespace's functions. Nothing outside `${…}`.
 */
import { CompletionItemKind, MarkupKind, type CompletionItem } from "vscode-languageserver/node";
import type { OpenApiSchema } from "../../expr/index.js";
import { memberFunctions, type CelFunction } from "./cel-functions.js";
import { completionContext } from "./completion-context.js";
import { chainSchema, describeType, localsAt, type LocalNames } from "./field-schemas.js";
import type { RgdScope } from "./rgd-scope.js";

/** Fields first, then functions: what an RGD reads most is a field. */
const FIELD_ORDER = "0";
const FUNCTION_ORDER = "1";

function functionItem(fn: CelFunction, kind: CompletionItemKind): CompletionItem {
  const [first = fn.name, ...more] = fn.signatures;
  return {
    label: fn.name,
    kind,
    detail: more.length === 0 ? first : `${first} (+${more.length} more)`,
    documentation: { kind: MarkupKind.Markdown, value: ["```", ...fn.signatures, "```"].join("\n") },
    sortText: `${FUNCTION_ORDER}${fn.name}`,
  };
}

function rootItems(scope: RgdScope, locals: LocalNames): CompletionItem[] {
  const ids = scope.rgd.resources.map((r) => ({
    label: r.id,
    kind: CompletionItemKind.Variable,
    detail: r.kind === undefined ? "resource" : `${r.kind} (${r.apiVersion ?? "?"})`,
    sortText: `${FIELD_ORDER}${r.id}`,
  }));
  const localItems = [...locals].map(([name, schema]) => ({
    label: name,
    kind: CompletionItemKind.Variable,
    detail:
      name === "each"
        ? "an item of this collection"
        : `forEach item${schema === undefined ? "" : ` (${describeType(schema)})`}`,
    sortText: `${FIELD_ORDER}${name}`,
  }));
  const namespaces = [...scope.functions.namespaces.keys()].map((name) => ({
    label: name,
    kind: CompletionItemKind.Module,
    detail: "CEL function namespace",
    sortText: `${FUNCTION_ORDER}${name}`,
  }));
  return [
    ...localItems,
    ...ids,
    { label: "schema", kind: CompletionItemKind.Variable, detail: "the instance", sortText: `${FIELD_ORDER}schema` },
    ...namespaces,
    ...scope.functions.globals.map((fn) => functionItem(fn, CompletionItemKind.Function)),
  ];
}

function fieldItems(schema: OpenApiSchema | undefined): CompletionItem[] {
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
    label: name,
    kind: CompletionItemKind.Field,
    detail: describeType(property),
    sortText: `${FIELD_ORDER}${name}`,
    ...(property.description === undefined
      ? {}
      : { documentation: { kind: MarkupKind.PlainText, value: property.description } }),
  }));
}

/**
 * The items for the cursor at `offset`, the end of `linePrefix`; empty outside `${…}` or after a
 * chain whose value is unknown.
 */
export function completionItems(scope: RgdScope, linePrefix: string, offset: number): CompletionItem[] {
  const context = completionContext(linePrefix);
  if (context === undefined) return [];
  const locals = localsAt(scope.rgd, scope.resolver, offset);
  if (context.chain.length === 0) return rootItems(scope, locals);
  const [head] = context.chain;
  const namespace =
    typeof head === "string" && context.chain.length === 1 ? scope.functions.namespaces.get(head) : undefined;
  if (namespace !== undefined && !locals.has(head as string) && !scope.rgd.resources.some((r) => r.id === head))
    return namespace.map((fn) => functionItem(fn, CompletionItemKind.Function));
  const schema = chainSchema(scope.rgd, scope.resolver, context.chain, locals);
  return [
    ...fieldItems(schema),
    ...memberFunctions(scope.functions, schema, context.optional === true).map((fn) =>
      functionItem(fn, CompletionItemKind.Method),
    ),
  ];
}
