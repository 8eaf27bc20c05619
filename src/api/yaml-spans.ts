/**
 * Where nodes of a parsed YAML document lie in its text, as offsets: what an editor needs on top
 * of `locate` (which gives only where a node starts) to underline a whole value or find the
 * strings that hold `${…}` expressions. Read from the same parse as the values, so the two agree.
 */
import { isMap, isPair, isScalar, isSeq, type Document, type Node } from "yaml";
import type { IssuePath } from "../diag/index.js";

/** Offsets into the file's text: `start` inclusive, `end` exclusive. */
export interface SourceSpan {
  readonly start: number;
  readonly end: number;
}

/** One string scalar of a document: its path, its value, and where its source text lies. */
export interface SourceString {
  readonly path: IssuePath;
  readonly value: string;
  readonly span: SourceSpan;
  /** How it is written: a key's own text or a value's, plain, quoted or block. */
  readonly style: "plain" | "quoted" | "block";
  /** True for a map key (`id:` itself), false for a value. */
  readonly isKey: boolean;
}

function spanOf(node: Node | null | undefined): SourceSpan | undefined {
  const range = node?.range;
  if (range === undefined || range === null) return undefined;
  return { start: range[0], end: range[1] };
}

/**
 * The span of what sits at `path` when the whole path exists: a scalar value's own text; for a map
 * or list value, the key that names it (or the item's first character), since underlining a whole
 * block would hide everything inside it. Undefined when some segment is missing.
 */
export function spanAt(doc: Document.Parsed, path: IssuePath): SourceSpan | undefined {
  let node: unknown = doc.contents;
  let key: Node | undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) return undefined;
      key = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
      key = undefined;
      if (node === undefined) return undefined;
    } else {
      return undefined;
    }
  }
  if (isScalar(node)) return spanOf(node);
  const named = spanOf(key);
  if (named !== undefined) return named;
  const start = spanOf(node as Node | undefined)?.start;
  return start === undefined ? undefined : { start, end: start + 1 };
}

function styleOf(type: string | undefined): SourceString["style"] {
  if (type === "BLOCK_LITERAL" || type === "BLOCK_FOLDED") return "block";
  if (type === "QUOTE_DOUBLE" || type === "QUOTE_SINGLE") return "quoted";
  return "plain";
}

/** Every string scalar of the document (keys and values), in source order. */
export function stringsOf(doc: Document.Parsed): SourceString[] {
  const found: SourceString[] = [];
  const add = (node: unknown, path: IssuePath, isKey: boolean): void => {
    if (!isScalar(node) || typeof node.value !== "string") return;
    const span = spanOf(node);
    if (span !== undefined) found.push({ path, value: node.value, span, style: styleOf(node.type), isKey });
  };
  const visit = (node: unknown, path: IssuePath): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const childPath = [...path, String(pair.key.value)];
        add(pair.key, childPath, true);
        visit(pair.value, childPath);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        visit(item, [...path, index]);
      });
    } else {
      add(node, path, false);
    }
  };
  visit(doc.contents, []);
  return found;
}

/** The span readers of a SourceDocument over its parsed document. */
export function spanReaders(doc: Document.Parsed): {
  span: (path: IssuePath) => SourceSpan | undefined;
  strings: () => SourceString[];
} {
  return { span: (path) => spanAt(doc, path), strings: () => stringsOf(doc) };
}
