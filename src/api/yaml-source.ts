/**
 * Loads YAML (one or many documents) and keeps enough of the source to map an issue's path
 * back to file:line:column. The only place files are parsed, and they are read as Kubernetes and
 * Helm read them (sigs.k8s.io/yaml: YAML 1.1 scalars, Go's map keys; go-yaml-schema.ts).
 */
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  stringify,
  type Document,
  type Node,
} from "yaml";
import { error, formatIssue, warning, type InnerPosition, type Issue, type IssuePath } from "../diag/index.js";
import { applyGoJsonRules } from "./go-yaml-json.js";
import { GO_YAML_READ, GO_YAML_WRITE } from "./go-yaml-schema.js";
import { invalidUtf8At, tooDeepAt, YAML_ISSUE_CODES, YAML_LIMITS } from "./yaml-limits.js";
import { spanReaders, type SourceSpan, type SourceString } from "./yaml-spans.js";
import { reportSyntaxErrors, type SyntaxErrorReport } from "./yaml-syntax-errors.js";

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
  /** Offsets of the node at `path` (yaml-spans.ts): an editor underlines what an issue is about. */
  span(path: IssuePath): SourceSpan | undefined;
  /** Every string scalar with its path and offsets: where an editor looks for `${…}`. */
  strings(): readonly SourceString[];
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
  /** What probably fixes it, when the loader recognises the cause. */
  readonly hint?: string;
}

function nodeAt(doc: Document.Parsed, path: IssuePath): unknown {
  let node: unknown = doc.contents;
  for (const segment of path) {
    if (isMap(node))
      node = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment))?.value;
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

/** A parser that ran out of stack says so in its message; report it as nesting, once. */
const STACK_OVERFLOW = /call stack|too much recursion/i;

/** The one issue of a file over YAML_LIMITS.maxBytes (callers that know the size need not read it). */
export function tooLarge(file: string, size: number): LoadedFile {
  const message = `file is ${size} bytes; the limit is ${YAML_LIMITS.maxBytes} bytes`;
  return {
    file,
    text: "",
    documents: [],
    problems: [{ file, issue: error(YAML_ISSUE_CODES.tooLarge, [], message), position: { line: 1, column: 1 } }],
    warnings: [],
  };
}

/**
 * Loads a file's bytes: rejects files over the size limit and bytes that are not UTF-8 (with
 * the position of the first bad byte) before parsing, so each gets one clear issue.
 */
export function loadYamlBytes(file: string, bytes: Uint8Array): LoadedFile {
  if (bytes.length > YAML_LIMITS.maxBytes) return tooLarge(file, bytes.length);
  const bad = invalidUtf8At(bytes);
  if (bad !== undefined) {
    const lineStart = bytes.lastIndexOf(0x0a, bad - 1) + 1;
    const line = 1 + bytes.subarray(0, lineStart).reduce((n, b) => n + (b === 0x0a ? 1 : 0), 0);
    const column = new TextDecoder().decode(bytes.subarray(lineStart, bad)).length + 1;
    const message = `invalid UTF-8 at byte ${bad} (0x${(bytes[bad] ?? 0).toString(16).padStart(2, "0")}): YAML files must be UTF-8`;
    return {
      file,
      text: "",
      documents: [],
      problems: [{ file, issue: error(YAML_ISSUE_CODES.encoding, [], message), position: { line, column } }],
      warnings: [],
    };
  }
  return loadYaml(file, new TextDecoder().decode(bytes));
}

/**
 * Parses every document of `text`. Never throws: syntax errors, nesting beyond YAML_LIMITS,
 * alias bombs and oversized input each become one located problem (a document with a problem
 * yields no value; after a parser stack overflow the rest of the file is not trusted).
 */
export function loadYaml(file: string, text: string): LoadedFile {
  if (text.length > YAML_LIMITS.maxBytes) return tooLarge(file, text.length);
  const lineCounter = new LineCounter();
  const position = (offset: number | undefined): SourcePosition | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const problems: LocatedIssue[] = [];
  const problem = (code: string, message: string, offset: number | undefined): void => {
    const at = position(offset);
    problems.push({ file, issue: error(code, [], message), ...(at ? { position: at } : {}) });
  };
  const warnings: LocatedIssue[] = [];
  let docs: Document.Parsed[];
  try {
    // kubectl (sigs.k8s.io/yaml) and so kro accept a key given twice in one map, the last value
    // winning; so do we (GO_YAML_READ), with a warning naming the key.
    const parsed = parseAllDocuments(text, { ...GO_YAML_READ, lineCounter, prettyErrors: false });
    docs = Array.isArray(parsed) ? parsed : [];
  } catch (e) {
    problem(YAML_ISSUE_CODES.tooDeep, describeParserFailure(e), 0);
    return { file, text, documents: [], problems, warnings };
  }
  const documents: SourceDocument[] = [];
  for (const [index, doc] of docs.entries()) {
    const overflow = doc.errors.find((e) => STACK_OVERFLOW.test(e.message));
    if (overflow !== undefined) {
      problem(
        YAML_ISSUE_CODES.tooDeep,
        `nesting too deep for the YAML parser (the limit is ${YAML_LIMITS.maxDepth} levels)`,
        overflow.pos[0],
      );
      break;
    }
    const syntax = reportSyntaxErrors(text, doc.errors, [doc.range[0], doc.range[2]]);
    if (syntax !== undefined) problems.push(syntaxProblem(file, syntax, position(syntax.offset)));
    if (doc.errors.length > 0 || doc.contents === null) continue;
    const deep = tooDeepAt(doc.contents, YAML_LIMITS.maxDepth);
    if (deep !== undefined) {
      problem(YAML_ISSUE_CODES.tooDeep, `nesting deeper than ${YAML_LIMITS.maxDepth} levels`, deep);
      continue;
    }
    const unjsonable = applyGoJsonRules(doc.contents);
    for (const p of unjsonable) problem(YAML_ISSUE_CODES.notJson, p.message, p.offset);
    if (unjsonable.length > 0) continue;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount });
    } catch (e) {
      const aliases = e instanceof Error && /alias/i.test(e.message);
      problem(
        aliases ? YAML_ISSUE_CODES.aliases : YAML_ISSUE_CODES.syntax,
        aliases
          ? `aliases expand too much (more than ${YAML_LIMITS.maxAliasCount} expansions): refusing a possible alias bomb`
          : describeParserFailure(e),
        doc.contents.range[0],
      );
      continue;
    }
    for (const duplicate of duplicateKeys(doc.contents)) {
      const at = position(duplicate.offset);
      warnings.push({
        file,
        issue: warning(
          "yaml.duplicate-key",
          [],
          `key ${JSON.stringify(duplicate.key)} appears more than once in this map; the last value wins (as with kubectl)`,
        ),
        ...(at ? { position: at } : {}),
      });
    }
    documents.push({
      file,
      index,
      value,
      locate: (path, inner) => position((inner && innerOffset(doc, text, path, inner)) ?? offsetOf(doc, path)),
      ...spanReaders(doc),
    });
  }
  return { file, text, documents, problems, warnings };
}

function syntaxProblem(file: string, syntax: SyntaxErrorReport, at: SourcePosition | undefined): LocatedIssue {
  return {
    file,
    issue: error(YAML_ISSUE_CODES.syntax, [], syntax.message),
    ...(at ? { position: at } : {}),
    ...(syntax.hint === undefined ? {} : { hint: syntax.hint }),
  };
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

function describeParserFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return STACK_OVERFLOW.test(message)
    ? `nesting too deep for the YAML parser (the limit is ${YAML_LIMITS.maxDepth} levels)`
    : `cannot parse YAML: ${message}`;
}

/**
 * `file:line:column: error: path: message`, then the source line with a caret under the column,
 * then the hint if there is one.
 */
export function formatLocated(located: LocatedIssue, text?: string): string {
  const where = located.position ? `${located.file}:${located.position.line}:${located.position.column}` : located.file;
  const head = `${where}: ${formatIssue(located.issue)}`;
  const hint = located.hint === undefined ? "" : `\n${" ".repeat(5)} = hint: ${located.hint}`;
  if (located.position === undefined || text === undefined) return head + hint;
  const source = sourceLine(text, located.position.line);
  if (source === undefined) return head + hint;
  const { shown, caret } = window(source, located.position.column);
  const gutter = String(located.position.line).padStart(5);
  return `${head}\n${gutter} | ${shown}\n${" ".repeat(gutter.length)} | ${" ".repeat(caret)}^${hint}`;
}

/** The 1-based line of `text` without splitting the whole (possibly huge) text. */
function sourceLine(text: string, line: number): string | undefined {
  if (text === "") return undefined;
  let start = 0;
  for (let n = 1; n < line; n++) {
    start = text.indexOf("\n", start) + 1;
    if (start === 0) return undefined;
  }
  const end = text.indexOf("\n", start);
  return text.slice(start, end < 0 ? undefined : end).replace(/\r$/, "");
}

const SOURCE_WIDTH = 100;

/** A long source line is cut to a window around the column, marked with ellipses. */
function window(source: string, column: number): { shown: string; caret: number } {
  if (source.length <= SOURCE_WIDTH) return { shown: source, caret: column - 1 };
  const from = Math.max(0, Math.min(column - 1 - SOURCE_WIDTH / 2, source.length - SOURCE_WIDTH));
  const prefix = from > 0 ? "…" : "";
  const suffix = from + SOURCE_WIDTH < source.length ? "…" : "";
  return { shown: prefix + source.slice(from, from + SOURCE_WIDTH) + suffix, caret: column - 1 - from + prefix.length };
}

/**
 * YAML text for output (kubectl-like: block style, no line folding), every string another reader
 * could take for a boolean, number, null or timestamp quoted (`"no"`, `"0755"`), so that kubectl,
 * Helm and YAML 1.2 tools read back exactly `value`.
 */
export function toYaml(value: unknown): string {
  return stringify(value, { ...GO_YAML_WRITE, aliasDuplicateObjects: false });
}
