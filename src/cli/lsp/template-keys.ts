/**
 * Completion of keys inside a CEL-dialect resource's `template:`: on a line where a key is being
 * typed, the fields the kind's schema has at that place, minus those already written there. The
 * place is read from the text's indentation, not from the parsed YAML, because the line being
 * typed is usually not valid YAML yet: the key lines above it with less indentation are its
 * ancestors, up to `template:`, and a `- ` marks a list item on the way.
 */
import { CompletionItemKind, MarkupKind, type CompletionItem } from "vscode-languageserver/node";
import { schemaAt, type SchemaResolver } from "../../graph/index.js";
import { describeType } from "./field-schemas.js";
import type { RgdIndex } from "./rgd-index.js";

interface KeyLine {
  /** The column a key on this line starts at (after any `- `). */
  readonly indent: number;
  readonly key: string;
  /** True when the key opens a list item (`- name: web`). */
  readonly item: boolean;
}

function keyLine(line: string): KeyLine | undefined {
  const match = /^(\s*)((?:-\s+)*)([\w./-]+):(\s|$)/.exec(line);
  if (match === null) return undefined;
  return {
    indent: (match[1]?.length ?? 0) + (match[2]?.length ?? 0),
    key: match[3] ?? "",
    item: (match[2] ?? "") !== "",
  };
}

/** A line that carries something (not blank, not a comment), with its key if it has one. */
function meaningful(line: string): { parsed: KeyLine | undefined; indent: number } | undefined {
  if (line.trim() === "" || line.trimStart().startsWith("#")) return undefined;
  const parsed = keyLine(line);
  return { parsed, indent: parsed?.indent ?? /^\s*/.exec(line)?.[0].length ?? 0 };
}

/** Keys at the cursor's own level below it, until its map (or list item) ends. */
function siblingsBelow(lines: readonly string[], lineIndex: number, indent: number): string[] {
  const found: string[] = [];
  for (let i = lineIndex + 1; i < lines.length; i++) {
    const line = meaningful(lines[i] ?? "");
    if (line === undefined) continue;
    if (line.indent < indent || line.parsed?.item === true) break;
    if (line.parsed !== undefined && line.indent === indent) found.push(line.parsed.key);
  }
  return found;
}

/**
 * The path from the resource's `template:` (its key at column `templateIndent`) to the map the
 * cursor's line belongs to (list items as index 0), with the keys already written in that map;
 * undefined outside that template.
 */
export function templatePathAt(
  lines: readonly string[],
  lineIndex: number,
  indent: number,
  templateIndent: number,
): { path: (string | number)[]; siblings: string[] } | undefined {
  const path: (string | number)[] = [];
  let level = indent;
  let startsItem = /^\s*-\s/.test(lines[lineIndex] ?? "");
  // A new list item has nothing written yet.
  const siblings = startsItem ? [] : siblingsBelow(lines, lineIndex, indent);
  for (let i = lineIndex - 1; i >= 0; i--) {
    const line = meaningful(lines[i] ?? "");
    if (line === undefined) continue;
    const { parsed } = line;
    if (parsed !== undefined && line.indent === level) {
      // Above the cursor in its own map: a key written already; an item marker opens that map.
      if (path.length === 0 && !startsItem) siblings.push(parsed.key);
      startsItem ||= parsed.item;
      continue;
    }
    if (line.indent >= level) continue;
    if (parsed === undefined || line.indent < templateIndent) return undefined;
    if (startsItem) path.unshift(0);
    // The resource's own `template:` (a pod template inside it has the same name, deeper).
    if (parsed.key === "template" && parsed.indent === templateIndent) return { path, siblings };
    path.unshift(parsed.key);
    level = parsed.indent;
    startsItem = parsed.item;
  }
  return undefined;
}

/** Where completion was asked: the whole text, and the cursor's line, the text before it on that line, its offset. */
export interface Cursor {
  readonly text: string;
  readonly line: number;
  readonly linePrefix: string;
  readonly offset: number;
}

/** The key items at the cursor, in a resource's template. */
export function templateKeyItems(rgd: RgdIndex, resolver: SchemaResolver, cursor: Cursor): CompletionItem[] {
  const { text, line: lineIndex, linePrefix, offset } = cursor;
  const typing = /^(\s*)((?:-\s+)*)([\w./-]*)$/.exec(linePrefix);
  if (typing === null) return [];
  // The entry the cursor is in or after (a new last line is past every string of it).
  const resource = rgd.resources.filter((r) => r.extent.start <= offset).at(-1);
  if (resource?.apiVersion === undefined || resource.kind === undefined) return [];
  const templateKey = rgd.document
    .strings()
    .find(
      (s) =>
        s.isKey &&
        s.path.length === 4 &&
        s.path[1] === "resources" &&
        s.path[3] === "template" &&
        resource.extent.start <= s.span.start &&
        s.span.start <= resource.extent.end,
    );
  if (templateKey === undefined) return [];
  const templateIndent = templateKey.span.start - (text.lastIndexOf("\n", templateKey.span.start - 1) + 1);
  const lines = text.split("\n");
  const indent = (typing[1]?.length ?? 0) + (typing[2]?.length ?? 0);
  const place = templatePathAt(lines, lineIndex, indent, templateIndent);
  if (place === undefined) return [];
  const schema = schemaAt(resolver.resolve(resource.apiVersion, resource.kind)?.schema, place.path);
  return Object.entries(schema?.properties ?? {})
    .filter(([name]) => !place.siblings.includes(name))
    .map(([name, property]) => ({
      label: name,
      kind: CompletionItemKind.Property,
      detail: describeType(property),
      insertText: `${name}: `,
      ...(property.description === undefined
        ? {}
        : { documentation: { kind: MarkupKind.PlainText, value: property.description } }),
    }));
}
