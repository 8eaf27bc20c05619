/**
 * Loads YAML (one or many documents) and keeps enough of the source to map an issue's path
 * back to file:line:column. The only place the `yaml` parser is used.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, stringify, type Document, type Node } from "yaml";
import { error, formatIssue, warning, type InnerPosition, type Issue, type IssuePath } from "../diag/index.js";

export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

export interface SourceDocument {
  readonly file: string;
  /** 0-based index of the document within the file. */
  readonly index: number;
  readonly value: unknown;
  /**
   * Where the value (or the key that names it) at `path` starts; the nearest ancestor if absent.
   * With `inner`, the position of that line/column inside the string value at `path` (block
   * scalars map line by line; quoted and plain scalars on their first line).
   */
  locate(path: IssuePath, inner?: InnerPosition): SourcePosition | undefined;
}

export interface LoadedFile {
  readonly file: string;
  readonly text: string;
  readonly documents: readonly SourceDocument[];
  /** YAML syntax problems, each with its own position. */
  readonly problems: readonly LocatedIssue[];
  /** Accepted but suspicious input: a key given twice in one map (the last value wins, as with kubectl). */
  readonly warnings: readonly LocatedIssue[];
}

export interface LocatedIssue {
  readonly issue: Issue;
  readonly file: string;
  readonly position?: SourcePosition;
}

function nodeAt(doc: Document.Parsed, path: IssuePath): unknown {
  let node: unknown = doc.contents;
  for (const segment of path) {
    if (isMap(node)) node = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment))?.value;
    else if (isSeq(node) && typeof segment === "number") node = node.items[segment];
    else return undefined;
  }
  return node;
}

/** Offset in `text` of a 1-based line/column inside the string scalar at `path`. */
function innerOffset(doc: Document.Parsed, text: string, path: IssuePath, inner: InnerPosition): number | undefined {
  const node = nodeAt(doc, path);
  if (!isScalar(node) || node.range === undefined || node.range === null) return undefined;
  const start = node.range[0];
  if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") {
    // Content starts on the line after the `|` header; its indentation is that of the first
    // non-blank line (an explicit indentation indicator is rare enough to ignore).
    let lineStart = text.indexOf("\n", start) + 1;
    if (lineStart === 0) return undefined;
    const firstLine = /^(?:[ \t]*\r?\n)*( *)/.exec(text.slice(lineStart));
    const indent = firstLine?.[1]?.length ?? 0;
    for (let line = 1; line < inner.line; line++) {
      const next = text.indexOf("\n", lineStart);
      if (next < 0) return undefined;
      lineStart = next + 1;
    }
    const lineEnd = text.indexOf("\n", lineStart);
    return Math.min(lineStart + indent + inner.column - 1, lineEnd < 0 ? text.length : lineEnd);
  }
  if (inner.line !== 1) return start;
  const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE";
  return Math.min(start + (quoted ? 1 : 0) + inner.column - 1, node.range[1]);
}

function offsetOf(doc: Document.Parsed, path: IssuePath): number | undefined {
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0];
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) return offset;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as Node | undefined;
      if (item === undefined) return offset;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      return offset;
    }
  }
  return offset;
}

export function loadYaml(file: string, text: string): LoadedFile {
  const lineCounter = new LineCounter();
  // kubectl (sigs.k8s.io/yaml) and so kro accept a key given twice in one map, the last value
  // winning; so do we, with a warning naming the key.
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const position = (offset: number | undefined): SourcePosition | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const problems: LocatedIssue[] = [];
  const warnings: LocatedIssue[] = [];
  const documents: SourceDocument[] = [];
  const docs = Array.isArray(parsed) ? parsed : [];
  docs.forEach((doc, index) => {
    for (const e of doc.errors) {
      const at = position(e.pos[0]);
      problems.push({ file, issue: error("yaml.syntax", [], e.message.split("\n")[0] ?? e.message), ...(at ? { position: at } : {}) });
    }
    if (doc.errors.length > 0 || doc.contents === null) return;
    for (const duplicate of duplicateKeys(doc.contents)) {
      const at = position(duplicate.offset);
      warnings.push({ file, issue: warning("yaml.duplicate-key", [], `key ${JSON.stringify(duplicate.key)} appears more than once in this map; the last value wins (as with kubectl)`), ...(at ? { position: at } : {}) });
    }
    documents.push({
      file,
      index,
      value: doc.toJS({ maxAliasCount: 100 }) as unknown,
      locate: (path, inner) => position((inner && innerOffset(doc, text, path, inner)) ?? offsetOf(doc, path)),
    });
  });
  return { file, text, documents, problems, warnings };
}

/** Keys given twice in one map, anywhere in the document, with the offset of the later one. */
function duplicateKeys(root: unknown): { key: string; offset: number | undefined }[] {
  const found: { key: string; offset: number | undefined }[] = [];
  const visit = (node: unknown): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const key = String(pair.key.value);
          if (seen.has(key)) found.push({ key, offset: pair.key.range?.[0] });
          seen.add(key);
        }
        visit(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item);
    }
  };
  visit(root);
  return found;
}

/** `file:line:column: error: path: message`, then the source line with a caret under the column. */
export function formatLocated(located: LocatedIssue, text?: string): string {
  const where = located.position ? `${located.file}:${located.position.line}:${located.position.column}` : located.file;
  const head = `${where}: ${formatIssue(located.issue)}`;
  if (located.position === undefined || text === undefined) return head;
  const source = text.split("\n")[located.position.line - 1];
  if (source === undefined) return head;
  const gutter = String(located.position.line).padStart(5);
  return `${head}\n${gutter} | ${source}\n${" ".repeat(gutter.length)} | ${" ".repeat(located.position.column - 1)}^`;
}

/** YAML text for output (kubectl-like: block style, no line folding). */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}
