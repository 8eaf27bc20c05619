/**
 * Completion in the instance's SimpleSchema (`spec.schema.spec` and `spec.schema.types` of the
 * CEL dialect): the value of a field is a type, then `|` and markers. Before a `|`, the types the
 * compiler knows (atomic ones, `object`, lists and maps of them, the RGD's own `types`); after
 * it, the markers (`minimum=`), from the compiler's own lists.
 */
import { CompletionItemKind, type CompletionItem } from "vscode-languageserver/node";
import type { SourceString } from "../../api/index.js";
import { ATOMIC_TYPES, MARKER_KEYS } from "../../schema/index.js";
import type { RgdIndex } from "./rgd-index.js";

const IN_SCHEMA = [
  ["spec", "schema", "spec"],
  ["spec", "schema", "types"],
] as const;

function inSchema(string: SourceString): boolean {
  return IN_SCHEMA.some((prefix) => prefix.every((segment, i) => string.path[i] === segment));
}

/** The names declared under spec.schema.types. */
function customTypes(rgd: RgdIndex): string[] {
  const schema = (rgd.document.value as { spec?: { schema?: { types?: unknown } } } | undefined)?.spec?.schema;
  const types = schema?.types;
  return typeof types === "object" && types !== null ? Object.keys(types) : [];
}

/**
 * Items for the cursor at `offset`, the end of `linePrefix`, when the line is a field of the
 * SimpleSchema (the nearest string before the cursor lies in it) and the cursor is in its value.
 */
export function simpleSchemaItems(rgd: RgdIndex, linePrefix: string, offset: number): CompletionItem[] {
  const before = rgd.document
    .strings()
    .filter((s) => s.span.start <= offset)
    .at(-1);
  if (before === undefined || !inSchema(before)) return [];
  const value = /^\s*(?:-\s+)?[\w.-]+:\s+["']?([^"'#]*)$/.exec(linePrefix)?.[1];
  if (value === undefined || value.includes("${")) return [];
  if (value.includes("|"))
    return MARKER_KEYS.map((key) => ({
      label: key,
      kind: CompletionItemKind.Property,
      insertText: key === "required" || key === "immutable" ? `${key}=true` : `${key}=`,
      detail: "SimpleSchema marker",
    }));
  const named = [...ATOMIC_TYPES, ...customTypes(rgd)];
  return [
    ...named.map((type) => ({ label: type, kind: CompletionItemKind.TypeParameter, detail: "SimpleSchema type" })),
    { label: "object", kind: CompletionItemKind.TypeParameter, detail: "SimpleSchema type: free-form object" },
    ...named.map((type) => ({ label: `[]${type}`, kind: CompletionItemKind.TypeParameter, detail: "a list" })),
    ...named.map((type) => ({
      label: `map[string]${type}`,
      kind: CompletionItemKind.TypeParameter,
      detail: "a map with string keys",
    })),
  ];
}
