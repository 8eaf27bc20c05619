/**
 * Splits the marker half of a type string (`required=true description="a b" default=[1, 2]`) into
 * key/value pairs. Quoting and bracket rules follow kro: double-quoted values are unescaped
 * (`\"` and `\\` only; other escapes keep their backslash), bracketed values are kept verbatim
 * because they are JSON, and a `|` outside quotes/brackets means a second separator.
 */
import { SCHEMA_ISSUE_CODES, type SchemaIssueCode } from "./issue-codes.js";

export interface RawMarker {
  readonly key: string;
  readonly value: string;
}

export interface MarkerLexError {
  readonly code: SchemaIssueCode;
  readonly message: string;
}

export type MarkerLexResult =
  | { readonly markers: readonly RawMarker[]; readonly error?: undefined }
  | { readonly markers?: undefined; readonly error: MarkerLexError };

const CLOSERS: Readonly<Record<string, string>> = { "[": "]", "{": "}" };

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

export function lexMarkers(text: string): MarkerLexResult {
  const markers: RawMarker[] = [];
  let i = 0;
  for (;;) {
    while (isSpace(text[i])) i++;
    if (i >= text.length) return { markers };
    if (text[i] === "|") return secondPipe();
    const keyStart = i;
    while (i < text.length && text[i] !== "=" && !isSpace(text[i])) {
      if (text[i] === "|") return secondPipe();
      i++;
    }
    const key = text.slice(keyStart, i);
    if (text[i] !== "=") return fail(`marker "${key}" has no value (expected key=value)`);
    if (key === "") return fail("marker without a key before '='");
    i++; // '='
    const value = text[i] === '"' ? lexQuoted(text, i) : lexBare(text, i);
    if ("error" in value) return { error: value.error };
    markers.push({ key, value: value.value });
    i = value.end;
  }
}

type ValueLex = { value: string; end: number } | { error: MarkerLexError };

function lexQuoted(text: string, start: number): ValueLex {
  let out = "";
  let i = start + 1;
  while (i < text.length) {
    const c = text[i] ?? "";
    if (c === "\\") {
      const next = text[i + 1];
      if (next === '"' || next === "\\") {
        out += next;
        i += 2;
        continue;
      }
      out += c;
      i++;
      continue;
    }
    if (c === '"') {
      const after = text[i + 1];
      if (after !== undefined && !isSpace(after)) {
        if (after === "|") return secondPipe();
        return { error: syntax(`unexpected character '${after}' after quoted value ${text.slice(start, i + 1)}`) };
      }
      return { value: out, end: i + 1 };
    }
    out += c;
    i++;
  }
  return { error: syntax(`unclosed quote in marker value ${text.slice(start)}`) };
}

function lexBare(text: string, start: number): ValueLex {
  const open: string[] = [];
  let i = start;
  while (i < text.length) {
    const c = text[i] ?? "";
    if (open.length === 0 && isSpace(c)) break;
    if (c === '"') {
      // Quotes inside a bare/bracketed value are kept verbatim (JSON strings), but brackets
      // and spaces inside them must not count.
      const close = findClosingQuote(text, i);
      if (close < 0) return { error: syntax(`unclosed quote in marker value ${text.slice(start)}`) };
      i = close + 1;
      continue;
    }
    if (c === "|" && open.length === 0) return secondPipe();
    const closer = CLOSERS[c];
    if (closer !== undefined) open.push(closer);
    else if (c === "]" || c === "}") {
      if (open.pop() !== c) return { error: syntax(`unbalanced '${c}' in marker value ${text.slice(start)}`) };
    }
    i++;
  }
  if (open.length > 0)
    return {
      error: syntax(
        `unclosed '${open.length > 0 ? reverseOf(open[open.length - 1] ?? "") : ""}' in marker value ${text.slice(start)}`,
      ),
    };
  return { value: text.slice(start, i), end: i };
}

function findClosingQuote(text: string, openAt: number): number {
  for (let i = openAt + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function reverseOf(closer: string): string {
  return closer === "]" ? "[" : "{";
}

function syntax(message: string): MarkerLexError {
  return { code: SCHEMA_ISSUE_CODES.markerSyntax, message };
}

function fail(message: string): MarkerLexResult {
  return { error: syntax(message) };
}

function secondPipe(): { error: MarkerLexError } {
  return {
    error: {
      code: SCHEMA_ISSUE_CODES.multipleSeparators,
      message: "only one '|' may separate the type from its markers",
    },
  };
}
