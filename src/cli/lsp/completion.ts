/**
 * Completion inside `${…}`: at the start of a name, the RGD's resource ids and `schema`; after a
 * `.`, the fields of what the chain selects (field-schemas.ts). Nothing outside `${…}`.
 */
import { CompletionItemKind, MarkupKind, type CompletionItem } from "vscode-languageserver/node";
import type { SchemaResolver } from "../../graph/index.js";
import { completionContext } from "./completion-context.js";
import { chainSchema, describeType } from "./field-schemas.js";
import type { RgdIndex } from "./rgd-index.js";

function rootItems(rgd: RgdIndex): CompletionItem[] {
  const ids = rgd.resources.map((r) => ({
    label: r.id,
    kind: CompletionItemKind.Variable,
    detail: r.kind === undefined ? "resource" : `${r.kind} (${r.apiVersion ?? "?"})`,
  }));
  return [...ids, { label: "schema", kind: CompletionItemKind.Variable, detail: "the instance" }];
}

/** The items for the cursor at the end of `linePrefix`; empty outside `${…}` or after an unknown chain. */
export function completionItems(rgd: RgdIndex, resolver: SchemaResolver, linePrefix: string): CompletionItem[] {
  const context = completionContext(linePrefix);
  if (context === undefined) return [];
  if (context.chain.length === 0) return rootItems(rgd);
  const schema = chainSchema(rgd, resolver, context.chain);
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
    label: name,
    kind: CompletionItemKind.Field,
    detail: describeType(property),
    ...(property.description === undefined
      ? {}
      : { documentation: { kind: MarkupKind.PlainText, value: property.description } }),
  }));
}
