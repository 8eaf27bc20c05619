/**
 * Literal patterns of Sprig's regex functions, checked when the template is compiled: Go's
 * `regexp.MustCompile`-style failures (a pattern RE2 rejects) become compile errors at the
 * pattern's position instead of surprises at render time. Static: nothing runs.
 */
import { checkGoRegexp } from "../../schema/index.js";
import type { ArgNode, ListNode, Node, PipeNode } from "./ast.js";
import { positionOf } from "./errors.js";
import type { TreeSet } from "./parser.js";

/** Sprig functions whose first argument is a pattern. */
const REGEX_FUNCTIONS = new Set(["regexMatch", "regexReplaceAll"]);

export interface RegexLiteralProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export function invalidRegexLiterals(text: string, trees: TreeSet): RegexLiteralProblem[] {
  const found: RegexLiteralProblem[] = [];
  const pipe = (p: PipeNode): void => {
    for (const command of p.cmds) {
      const [fn, pattern] = command.args;
      if (fn?.kind === "identifier" && REGEX_FUNCTIONS.has(fn.ident) && pattern?.kind === "string") {
        const problem = checkGoRegexp(pattern.text);
        if (problem !== undefined)
          found.push({
            ...positionOf(text, pattern.pos),
            message: `${fn.ident}: invalid regular expression ${JSON.stringify(pattern.text)}: ${problem}`,
          });
      }
      for (const a of command.args) arg(a);
    }
  };
  const arg = (a: ArgNode): void => {
    if (a.kind === "pipe") pipe(a);
    else if (a.kind === "chain") arg(a.node);
  };
  const list = (l: ListNode | null): void => {
    for (const n of l?.nodes ?? []) node(n);
  };
  const node = (n: Node): void => {
    switch (n.kind) {
      case "action":
        pipe(n.pipe);
        return;
      case "if":
      case "with":
      case "range":
        pipe(n.pipe);
        list(n.list);
        list(n.elseList);
        return;
      case "template":
        if (n.pipe) pipe(n.pipe);
        return;
      case "list":
        list(n);
        return;
      default:
        return;
    }
  };
  for (const tree of trees.values()) list(tree.root);
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}
