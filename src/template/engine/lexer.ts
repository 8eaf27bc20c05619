/**
 * A port of Go's text/template/parse lexer (lex.go): same item kinds, same trim-marker rules and
 * same error texts, so parse errors read exactly like Go's. Positions are UTF-16 offsets.
 */
import { formatRune, goQuote, runes } from "../go/index.js";

export const ItemType = {
  Error: 0,
  Bool: 1,
  Char: 2,
  CharConstant: 3,
  Comment: 4,
  Complex: 5,
  Assign: 6,
  Declare: 7,
  EOF: 8,
  Field: 9,
  Identifier: 10,
  LeftDelim: 11,
  LeftParen: 12,
  Number: 13,
  Pipe: 14,
  RawString: 15,
  RightDelim: 16,
  RightParen: 17,
  Space: 18,
  String: 19,
  Text: 20,
  Variable: 21,
  Keyword: 22,
  Block: 23,
  Break: 24,
  Continue: 25,
  Dot: 26,
  Define: 27,
  Else: 28,
  End: 29,
  If: 30,
  Nil: 31,
  Range: 32,
  Template: 33,
  With: 34,
} as const;
export type ItemType = (typeof ItemType)[keyof typeof ItemType];

export interface Item {
  readonly typ: ItemType;
  readonly pos: number;
  readonly val: string;
  readonly line: number;
}

const keywords: Record<string, ItemType> = {
  ".": ItemType.Dot,
  block: ItemType.Block,
  break: ItemType.Break,
  continue: ItemType.Continue,
  define: ItemType.Define,
  else: ItemType.Else,
  end: ItemType.End,
  if: ItemType.If,
  range: ItemType.Range,
  nil: ItemType.Nil,
  template: ItemType.Template,
  with: ItemType.With,
};

/** Go's item.String(), used verbatim in "unexpected X in Y" messages. */
export function itemString(i: Item): string {
  if (i.typ === ItemType.EOF) return "EOF";
  if (i.typ === ItemType.Error) return i.val;
  if (i.typ > ItemType.Keyword) return `<${i.val}>`;
  const r = runes(i.val);
  if (r.length > 10) return `${goQuote(r.slice(0, 10).join(""))}...`;
  return goQuote(i.val);
}

const EOF = -1;
const LEFT = "{{";
const RIGHT = "}}";
const isSpace = (r: number): boolean => r === 32 || r === 9 || r === 13 || r === 10;
const isSpaceChar = (s: string | undefined): boolean => s === " " || s === "\t" || s === "\r" || s === "\n";
export const isAlphaNumeric = (r: number): boolean =>
  r === 95 || (r >= 0 && /^[\p{L}\p{Nd}]$/u.test(String.fromCodePoint(r)));
const hasLeftTrimMarker = (s: string, at: number): boolean => s[at] === "-" && isSpaceChar(s[at + 1]);
const hasRightTrimMarker = (s: string, at: number): boolean => isSpaceChar(s[at]) && s[at + 1] === "-";
const trimRightLen = (s: string): number => s.length - s.replace(/[ \t\r\n]+$/, "").length;
const trimLeftLen = (s: string): number => s.length - s.replace(/^[ \t\r\n]+/, "").length;
const countNewlines = (s: string): number => s.split("\n").length - 1;

type StateFn = (l: Lexer) => StateFn | null;

export class Lexer {
  pos = 0;
  start = 0;
  atEOF = false;
  parenDepth = 0;
  line = 1;
  startLine = 1;
  insideAction = false;
  item: Item = { typ: ItemType.EOF, pos: 0, val: "EOF", line: 1 };

  constructor(
    public input: string,
    readonly breakOK: boolean,
    readonly continueOK: boolean,
  ) {}

  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos) ?? EOF;
    this.pos += r > 0xffff ? 2 : 1;
    if (r === 10) this.line++;
    return r;
  }
  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }
  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const low = this.input.charCodeAt(this.pos - 1);
      const w = low >= 0xdc00 && low <= 0xdfff && this.pos > 1 ? 2 : 1;
      this.pos -= w;
      if (low === 10) this.line--;
    }
  }
  thisItem(typ: ItemType): Item {
    const i = { typ, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine };
    this.start = this.pos;
    this.startLine = this.line;
    return i;
  }
  emit(typ: ItemType): null {
    this.item = this.thisItem(typ);
    return null;
  }
  emitItem(i: Item): null {
    this.item = i;
    return null;
  }
  ignore(): void {
    this.line += countNewlines(this.input.slice(this.start, this.pos));
    this.start = this.pos;
    this.startLine = this.line;
  }
  accept(valid: string): boolean {
    const r = this.next();
    if (r !== EOF && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }
  acceptRun(valid: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || !valid.includes(String.fromCodePoint(r))) break;
    }
    this.backup();
  }
  errorf(message: string): null {
    this.item = { typ: ItemType.Error, pos: this.start, val: message, line: this.startLine };
    this.start = 0;
    this.pos = 0;
    this.input = "";
    return null;
  }
  nextItem(): Item {
    this.item = { typ: ItemType.EOF, pos: this.pos, val: "EOF", line: this.startLine };
    let state: StateFn | null = this.insideAction ? lexInsideAction : lexText;
    while (state !== null) state = state(this);
    return this.item;
  }
  atRightDelim(): { delim: boolean; trim: boolean } {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT, this.pos + 2))
      return { delim: true, trim: true };
    if (this.input.startsWith(RIGHT, this.pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  }
  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    if (r === EOF || r === 46 || r === 44 || r === 124 || r === 58 || r === 41 || r === 40) return true;
    return this.input.startsWith(RIGHT, this.pos);
  }
}

function lexText(l: Lexer): StateFn | null {
  const x = l.input.indexOf(LEFT, l.pos);
  if (x >= 0) {
    if (x > l.pos) {
      l.pos = x;
      let trimLength = 0;
      if (hasLeftTrimMarker(l.input, l.pos + LEFT.length)) trimLength = trimRightLen(l.input.slice(l.start, l.pos));
      l.pos -= trimLength;
      l.line += countNewlines(l.input.slice(l.start, l.pos));
      const i = l.thisItem(ItemType.Text);
      l.pos += trimLength;
      l.ignore();
      if (i.val.length > 0) return l.emitItem(i);
    }
    return lexLeftDelim;
  }
  l.pos = l.input.length;
  if (l.pos > l.start) {
    l.line += countNewlines(l.input.slice(l.start, l.pos));
    return l.emit(ItemType.Text);
  }
  return l.emit(ItemType.EOF);
}

function lexLeftDelim(l: Lexer): StateFn | null {
  l.pos += LEFT.length;
  const trim = hasLeftTrimMarker(l.input, l.pos);
  const afterMarker = trim ? 2 : 0;
  if (l.input.startsWith("/*", l.pos + afterMarker)) {
    l.pos += afterMarker;
    l.ignore();
    return lexComment;
  }
  const i = l.thisItem(ItemType.LeftDelim);
  l.insideAction = true;
  l.pos += afterMarker;
  l.ignore();
  l.parenDepth = 0;
  return l.emitItem(i);
}

function lexComment(l: Lexer): StateFn | null {
  l.pos += 2;
  const x = l.input.indexOf("*/", l.pos);
  if (x < 0) return l.errorf("unclosed comment");
  l.pos = x + 2;
  const { delim, trim } = l.atRightDelim();
  if (!delim) return l.errorf("comment ends before closing delimiter");
  l.line += countNewlines(l.input.slice(l.start, l.pos));
  l.thisItem(ItemType.Comment); // comments are not emitted (no ParseComments mode)
  if (trim) l.pos += 2;
  l.pos += RIGHT.length;
  if (trim) l.pos += trimLeftLen(l.input.slice(l.pos));
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): StateFn | null {
  const { trim } = l.atRightDelim();
  if (trim) {
    l.pos += 2;
    l.ignore();
  }
  l.pos += RIGHT.length;
  const i = l.thisItem(ItemType.RightDelim);
  if (trim) {
    l.pos += trimLeftLen(l.input.slice(l.pos));
    l.ignore();
  }
  l.insideAction = false;
  return l.emitItem(i);
}

function lexInsideAction(l: Lexer): StateFn | null {
  if (l.atRightDelim().delim) {
    if (l.parenDepth === 0) return lexRightDelim;
    return l.errorf("unclosed left paren");
  }
  const r = l.next();
  if (r === EOF) return l.errorf("unclosed action");
  if (isSpace(r)) {
    l.backup();
    return lexSpace;
  }
  switch (r) {
    case 61:
      return l.emit(ItemType.Assign); // =
    case 58:
      return l.next() !== 61 ? l.errorf("expected :=") : l.emit(ItemType.Declare);
    case 124:
      return l.emit(ItemType.Pipe);
    case 34:
      return lexQuote;
    case 96:
      return lexRawQuote;
    case 36:
      return lexVariable;
    case 39:
      return lexChar;
    case 40:
      l.parenDepth++;
      return l.emit(ItemType.LeftParen);
    case 41:
      l.parenDepth--;
      if (l.parenDepth < 0) return l.errorf("unexpected right paren");
      return l.emit(ItemType.RightParen);
  }
  if (r === 46) {
    const c = l.input.charCodeAt(l.pos);
    if (l.pos < l.input.length && (c < 48 || c > 57)) return lexField;
  }
  if (r === 46 || r === 43 || r === 45 || (r >= 48 && r <= 57)) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  if (r <= 0x7f && r >= 0x20 && r !== 0x7f) return l.emit(ItemType.Char);
  return l.errorf(`unrecognized character in action: ${formatRune(r)}`);
}

function lexSpace(l: Lexer): StateFn | null {
  let numSpaces = 0;
  while (isSpace(l.peek())) {
    l.next();
    numSpaces++;
  }
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(RIGHT, l.pos - 1 + 2)) {
    l.backup();
    if (numSpaces === 1) return lexRightDelim;
  }
  return l.emit(ItemType.Space);
}

function lexIdentifier(l: Lexer): StateFn | null {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.input.slice(l.start, l.pos);
    if (!l.atTerminator()) return l.errorf(`bad character ${formatRune(r)}`);
    const key = keywords[word];
    if (key !== undefined && key > ItemType.Keyword) {
      if ((key === ItemType.Break && !l.breakOK) || (key === ItemType.Continue && !l.continueOK))
        return l.emit(ItemType.Identifier);
      return l.emit(key);
    }
    if (word.startsWith(".")) return l.emit(ItemType.Field);
    if (word === "true" || word === "false") return l.emit(ItemType.Bool);
    return l.emit(ItemType.Identifier);
  }
}

const lexField = (l: Lexer): StateFn | null => lexFieldOrVariable(l, ItemType.Field);

function lexVariable(l: Lexer): StateFn | null {
  if (l.atTerminator()) return l.emit(ItemType.Variable);
  return lexFieldOrVariable(l, ItemType.Variable);
}

function lexFieldOrVariable(l: Lexer, typ: ItemType): StateFn | null {
  if (l.atTerminator()) return l.emit(typ === ItemType.Variable ? ItemType.Variable : ItemType.Dot);
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRune(r)}`);
  return l.emit(typ);
}

function lexQuoted(l: Lexer, close: number, what: string, typ: ItemType): StateFn | null {
  for (;;) {
    let r = l.next();
    if (r === 92) {
      r = l.next();
      if (r !== EOF && r !== 10) continue;
    }
    if (r === EOF || r === 10) return l.errorf(`unterminated ${what}`);
    if (r === close) return l.emit(typ);
  }
}
const lexChar = (l: Lexer): StateFn | null => lexQuoted(l, 39, "character constant", ItemType.CharConstant);
const lexQuote = (l: Lexer): StateFn | null => lexQuoted(l, 34, "quoted string", ItemType.String);

function lexRawQuote(l: Lexer): StateFn | null {
  for (;;) {
    const r = l.next();
    if (r === EOF) return l.errorf("unterminated raw quoted string");
    if (r === 96) return l.emit(ItemType.RawString);
  }
}

function lexNumber(l: Lexer): StateFn | null {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${goQuote(l.input.slice(l.start, l.pos))}`);
  const sign = l.peek();
  if (sign === 43 || sign === 45) {
    if (!scanNumber(l) || l.input[l.pos - 1] !== "i")
      return l.errorf(`bad number syntax: ${goQuote(l.input.slice(l.start, l.pos))}`);
    return l.emit(ItemType.Complex);
  }
  return l.emit(ItemType.Number);
}

function scanNumber(l: Lexer): boolean {
  l.accept("+-");
  let digits = "0123456789_";
  if (l.accept("0")) {
    if (l.accept("xX")) digits = "0123456789abcdefABCDEF_";
    else if (l.accept("oO")) digits = "01234567_";
    else if (l.accept("bB")) digits = "01_";
  }
  l.acceptRun(digits);
  if (l.accept(".")) l.acceptRun(digits);
  if (digits.length === 11 && l.accept("eE")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  if (digits.length === 23 && l.accept("pP")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  l.accept("i");
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}
