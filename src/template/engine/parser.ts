/**
 * A port of Go's text/template/parse parser (parse.go): the same grammar, lookahead, variable
 * scoping and error texts ("template: NAME:LINE: MSG"). One call yields every tree the text
 * defines ({{define}} and {{block}} included).
 */
import type { ArgNode, CommandNode, ListNode, Node, PipeNode, VariableNode } from "./ast.js";
import { nodeString } from "./ast.js";
import { TemplateError, positionOf } from "./errors.js";
import { goQuote, goUnquote, parseNumber, type NumberValue } from "../go/index.js";
import { ItemType, itemString, Lexer, type Item } from "./lexer.js";
import { TokenStream } from "./token-stream.js";

/** One named template; `parseName`/`text` are the file it was parsed from (error positions). */
export interface Tree {
  readonly name: string;
  readonly root: ListNode;
  readonly parseName: string;
  readonly text: string;
}
export type TreeSet = Map<string, Tree>;

const MAX_STACK_DEPTH = 10000;

/** Internal: carries a Go-worded parse error and its offset out of the recursive descent. */
class ParseFailure extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

class TreeParser extends TokenStream {
  root: ListNode | null = null;
  private vars = ["$"];
  private actionLine = 0;
  private rangeDepth = 0;
  private stackDepth = 0;

  constructor(
    public name: string,
    private readonly parseName: string,
    lex: Lexer,
    private readonly treeSet: TreeSet,
    private readonly hasFunction: (name: string) => boolean,
  ) {
    super(lex);
  }

  errorf(message: string): never {
    this.root = null;
    const last = this.token[0];
    throw new ParseFailure(`template: ${this.parseName}:${last?.line ?? 1}: ${message}`, last?.pos ?? 0);
  }
  private expect(expected: ItemType, context: string): Item {
    const t = this.nextNonSpace();
    if (t.typ !== expected) this.unexpected(t, context);
    return t;
  }
  private unexpected(token: Item, context: string): never {
    if (token.typ === ItemType.Error) {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  add(): void {
    const tree = this.treeSet.get(this.name);
    if (tree === undefined || isEmptyTree(tree.root)) {
      this.treeSet.set(this.name, {
        name: this.name,
        root: this.root ?? { kind: "list", pos: 0, nodes: [] },
        parseName: this.parseName,
        text: this.lex.input,
      });
      return;
    }
    if (this.root !== null && !isEmptyTree(this.root))
      this.errorf(`template: multiple definition of template ${goQuote(this.name)}`);
  }

  parse(): void {
    this.root = { kind: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().typ !== ItemType.EOF) {
      if (this.peek().typ === ItemType.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().typ === ItemType.Define) {
          const def = new TreeParser("definition", this.parseName, this.lex, this.treeSet, this.hasFunction);
          def.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") this.errorf(`unexpected ${nodeString(n)}`);
      this.root.nodes.push(n);
    }
  }

  private parseDefinition(): void {
    const context = "define clause";
    const name = this.nextNonSpace();
    if (name.typ !== ItemType.String && name.typ !== ItemType.RawString) this.unexpected(name, context);
    this.name = this.unquote(name.val);
    this.expect(ItemType.RightDelim, context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.kind !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }

  private unquote(s: string): string {
    const v = goUnquote(s);
    if (v === undefined) this.errorf("invalid syntax");
    return v;
  }

  private itemList(): [ListNode, Node] {
    const list: ListNode = { kind: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().typ !== ItemType.EOF) {
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  private textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Text:
        return { kind: "text", pos: token.pos, text: token.val };
      case ItemType.LeftDelim:
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      default:
        this.unexpected(token, "input");
    }
  }

  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
        return this.branchControl("break", token.pos);
      case ItemType.Continue:
        return this.branchControl("continue", token.pos);
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return { kind: "end", pos: this.expect(ItemType.RightDelim, "end").pos };
      case ItemType.If:
        return this.control("if");
      case ItemType.Range:
        return this.control("range");
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return this.control("with");
    }
    this.backup();
    const t = this.peek();
    return { kind: "action", pos: t.pos, line: t.line, pipe: this.pipeline("command", ItemType.RightDelim) };
  }

  private branchControl(kind: "break" | "continue", pos: number): Node {
    const token = this.nextNonSpace();
    if (token.typ !== ItemType.RightDelim) this.unexpected(token, `{{${kind}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${kind}}} outside {{range}}`);
    return { kind, pos };
  }

  private pipeline(context: string, end: ItemType): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = { kind: "pipe", pos: first.pos, line: first.line, isAssign: false, decl: [], cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== ItemType.Variable) break;
      this.next();
      const after = this.peek();
      const next = this.peekNonSpace();
      if (next.typ === ItemType.Assign || next.typ === ItemType.Declare) {
        pipe.isAssign = next.typ === ItemType.Assign;
        this.nextNonSpace();
        pipe.decl.push(newVariable(v.pos, v.val));
        this.vars.push(v.val);
      } else if (next.typ === ItemType.Char && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push(newVariable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === ItemType.Variable || p === ItemType.RightDelim || p === ItemType.RightParen) continue;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (after.typ === ItemType.Space) {
        this.backup3(v, after);
      } else {
        this.backup2(v);
      }
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      if (token.typ === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (token.typ) {
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const k = c.args[0]?.kind;
      if (k === "bool" || k === "dot" || k === "nil" || k === "number" || k === "string") {
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  private control(context: "if" | "with" | "range"): Node {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, ItemType.RightDelim);
      if (context === "range") this.rangeDepth++;
      const [list, first] = this.itemList();
      let next = first;
      if (context === "range") this.rangeDepth--;
      let elseList: ListNode | null = null;
      if (next.kind === "else") {
        if (
          (context === "if" && this.peek().typ === ItemType.If) ||
          (context === "with" && this.peek().typ === ItemType.With)
        ) {
          this.next();
          elseList = { kind: "list", pos: next.pos, nodes: [this.control(context)] };
        } else {
          [elseList, next] = this.itemList();
          if (next.kind !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      return { kind: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private elseControl(): Node {
    const peek = this.peekNonSpace();
    if (peek.typ === ItemType.If || peek.typ === ItemType.With) return { kind: "else", pos: peek.pos };
    return { kind: "else", pos: this.expect(ItemType.RightDelim, "else").pos };
  }

  private templateName(token: Item, context: string): string {
    if (token.typ !== ItemType.String && token.typ !== ItemType.RawString) this.unexpected(token, context);
    return this.unquote(token.val);
  }

  private blockControl(): Node {
    const context = "block clause";
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    const block = new TreeParser(name, this.parseName, this.lex, this.treeSet, this.hasFunction);
    const [list, end] = block.itemList();
    block.root = list;
    if (end.kind !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    block.add();
    return { kind: "template", pos: token.pos, line: token.line, name, pipe };
  }

  private templateControl(): Node {
    const context = "template clause";
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== ItemType.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return { kind: "template", pos: token.pos, line: token.line, name, pipe };
  }

  private command(): CommandNode {
    const cmd: CommandNode = { kind: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== null) cmd.args.push(operand);
      const token = this.next();
      if (token.typ === ItemType.Space) continue;
      if (token.typ === ItemType.RightDelim || token.typ === ItemType.RightParen) this.backup();
      else if (token.typ !== ItemType.Pipe) this.unexpected(token, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private operand(): ArgNode | null {
    let node = this.term();
    if (node === null) return null;
    if (this.peek().typ === ItemType.Field) {
      const pos = this.peek().pos;
      const field: string[] = [];
      while (this.peek().typ === ItemType.Field) field.push(...this.next().val.slice(1).split("."));
      switch (node.kind) {
        case "field":
          node = { kind: "field", pos, ident: [...node.ident, ...field] };
          break;
        case "variable":
          node = { kind: "variable", pos, ident: [...node.ident, ...field] };
          break;
        case "bool":
        case "string":
        case "number":
        case "nil":
        case "dot":
          return this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
        default:
          node = { kind: "chain", pos, node, field };
      }
    }
    return node;
  }

  private term(): ArgNode | null {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Identifier:
        if (!this.hasFunction(token.val)) this.errorf(`function ${goQuote(token.val)} not defined`);
        return { kind: "identifier", pos: token.pos, ident: token.val };
      case ItemType.Dot:
        return { kind: "dot", pos: token.pos };
      case ItemType.Nil:
        return { kind: "nil", pos: token.pos };
      case ItemType.Variable:
        return this.useVar(token.pos, token.val);
      case ItemType.Field:
        return { kind: "field", pos: token.pos, ident: token.val.slice(1).split(".") };
      case ItemType.Bool:
        return { kind: "bool", pos: token.pos, value: token.val === "true" };
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number:
        return { kind: "number", pos: token.pos, text: token.val, value: this.number(token) };
      case ItemType.LeftParen: {
        if (this.stackDepth >= MAX_STACK_DEPTH) this.errorf("max expression depth exceeded");
        this.stackDepth++;
        try {
          return this.pipeline("parenthesized pipeline", ItemType.RightParen);
        } finally {
          this.stackDepth--;
        }
      }
      case ItemType.String:
      case ItemType.RawString:
        return { kind: "string", pos: token.pos, quoted: token.val, text: this.unquote(token.val) };
    }
    this.backup();
    return null;
  }

  private number(token: Item): NumberValue {
    const r = parseNumber(token.val, token.typ === ItemType.CharConstant, token.typ === ItemType.Complex);
    return typeof r === "string" ? this.errorf(r) : r;
  }

  private useVar(pos: number, name: string): VariableNode {
    const v = newVariable(pos, name);
    if (!this.vars.includes(v.ident[0] ?? "")) this.errorf(`undefined variable ${goQuote(v.ident[0] ?? "")}`);
    return v;
  }
}

function newVariable(pos: number, name: string): VariableNode {
  return { kind: "variable", pos, ident: name.split(".") };
}

function isEmptyTree(n: Node): boolean {
  if (n.kind === "list") return n.nodes.every(isEmptyTree);
  if (n.kind === "text") return n.text.trim() === "";
  return false;
}

/** Go's IsEmptyTree for a whole tree: only blanks and comments (a placeholder definition). */
export function isEmptyTreeRoot(root: ListNode): boolean {
  return isEmptyTree(root);
}

/** Parses `text` as template `name`; returns every tree it defines, or throws TemplateError. */
export function parseTrees(name: string, text: string, hasFunction: (name: string) => boolean): TreeSet {
  const treeSet: TreeSet = new Map();
  const lex = new Lexer(text, !hasFunction("break"), !hasFunction("continue"));
  const p = new TreeParser(name, name, lex, treeSet, hasFunction);
  try {
    p.parse();
    p.add();
  } catch (e) {
    if (!(e instanceof ParseFailure)) throw e;
    const { line, column } = positionOf(text, Math.min(e.pos, text.length));
    throw new TemplateError("parse", e.message, line, column);
  }
  return treeSet;
}
