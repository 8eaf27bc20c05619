/**
 * The parse tree, shaped like Go's text/template/parse nodes. `nodeString` reproduces Go's
 * Node.String(), which appears verbatim in error messages (`executing "t" at <.x.y>`).
 */
import { goQuote, type NumberValue } from "../go/index.js";

export type Node =
  | { kind: "text"; pos: number; text: string }
  | { kind: "action"; pos: number; line: number; pipe: PipeNode }
  | BranchNode
  | { kind: "template"; pos: number; line: number; name: string; pipe: PipeNode | null }
  | { kind: "break" | "continue"; pos: number }
  | ListNode
  | PipeNode
  | CommandNode
  | ArgNode
  | { kind: "end" | "else"; pos: number };

export interface BranchNode {
  kind: "if" | "with" | "range";
  pos: number;
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList: ListNode | null;
}
export interface ListNode {
  kind: "list";
  pos: number;
  nodes: Node[];
}
export interface VariableNode {
  kind: "variable";
  pos: number;
  ident: string[];
}
export interface PipeNode {
  kind: "pipe";
  pos: number;
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode {
  kind: "command";
  pos: number;
  args: ArgNode[];
}

/** Operands of a command. */
export type ArgNode =
  | { kind: "field"; pos: number; ident: string[] }
  | VariableNode
  | { kind: "chain"; pos: number; node: ArgNode; field: string[] }
  | { kind: "identifier"; pos: number; ident: string }
  | { kind: "dot" | "nil"; pos: number }
  | { kind: "bool"; pos: number; value: boolean }
  | { kind: "number"; pos: number; text: string; value: NumberValue }
  | { kind: "string"; pos: number; quoted: string; text: string }
  | PipeNode;

export function nodeString(n: Node): string {
  switch (n.kind) {
    case "text":
      return n.text;
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "if":
    case "with":
    case "range": {
      const els = n.elseList ? `{{else}}${nodeString(n.elseList)}` : "";
      return `{{${n.kind} ${nodeString(n.pipe)}}}${nodeString(n.list)}${els}{{end}}`;
    }
    case "template":
      return `{{template ${goQuote(n.name)}${n.pipe ? ` ${nodeString(n.pipe)}` : ""}}}`;
    case "break":
    case "continue":
    case "end":
    case "else":
      return `{{${n.kind}}}`;
    case "list":
      return n.nodes.map(nodeString).join("");
    case "pipe": {
      const decl = n.decl.length > 0 ? `${n.decl.map(nodeString).join(", ")}${n.isAssign ? " = " : " := "}` : "";
      return decl + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.kind === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "field":
      return n.ident.map((i) => `.${i}`).join("");
    case "variable":
      return n.ident.join(".");
    case "chain": {
      const head = n.node.kind === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node);
      return head + n.field.map((f) => `.${f}`).join("");
    }
    case "identifier":
      return n.ident;
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return n.value ? "true" : "false";
    case "number":
      return n.text;
    case "string":
      return n.quoted;
  }
}
