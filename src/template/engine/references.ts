/**
 * Static references of a parsed template: which `.<head>.<name>` field chains it reads from the
 * data root. The template dialect uses this to find `.children.<id>` dependencies without
 * executing anything. Only chains that certainly start at the root count: `.head.x` where dot
 * is still the root (outside `with`/`range` bodies and `define`d templates), `$.head.x`, and
 * `index .head "x"`. Chains through variables (`$c := .children`) are not followed.
 */
import type { ArgNode, ListNode, Node, PipeNode } from "./ast.js";
import { positionOf } from "./errors.js";
import type { Tree } from "./parser.js";

export interface FieldReference {
  /** The field read right after the head, e.g. "service" in `.children.service.spec`. */
  readonly name: string;
  /** Every field read after the head, e.g. ["service", "spec"] (`index` forms: just the key). */
  readonly path: readonly string[];
  /** 1-based position of the reference inside the template text. */
  readonly line: number;
  readonly column: number;
}

interface Walk {
  readonly text: string;
  readonly head: string;
  readonly found: { path: string[]; pos: number }[];
  /** True in the main template: `$` is the root data there, but not inside a `define`. */
  readonly dollarIsRoot: boolean;
}

/** The last `token` at or before `pos` (fields of one chain are contiguous in the text). */
function startOf(text: string, token: string, pos: number): number {
  const start = text.lastIndexOf(token, pos);
  return start < 0 ? pos : start;
}

function walkArg(walk: Walk, arg: ArgNode, dotIsRoot: boolean): void {
  switch (arg.kind) {
    case "field": {
      const [head, ...path] = arg.ident;
      // A chain's node sits at its second field (Go's parser); report where `.head` starts.
      if (dotIsRoot && head === walk.head && path.length > 0)
        walk.found.push({ path, pos: startOf(walk.text, `.${head}`, arg.pos) });
      return;
    }
    case "variable": {
      const [dollar, head, ...path] = arg.ident;
      if (walk.dollarIsRoot && dollar === "$" && head === walk.head && path.length > 0)
        walk.found.push({ path, pos: startOf(walk.text, "$", arg.pos) });
      return;
    }
    case "chain":
      walkArg(walk, arg.node, dotIsRoot);
      return;
    case "pipe":
      walkPipe(walk, arg, dotIsRoot);
      return;
    default:
      return;
  }
}

/** `index .children "service"` reads one child as surely as `.children.service` does. */
function isRootHead(walk: Walk, arg: ArgNode | undefined, dotIsRoot: boolean): boolean {
  if (arg?.kind === "field") return dotIsRoot && arg.ident.length === 1 && arg.ident[0] === walk.head;
  if (arg?.kind === "variable")
    return walk.dollarIsRoot && arg.ident.length === 2 && arg.ident[0] === "$" && arg.ident[1] === walk.head;
  return false;
}

function walkPipe(walk: Walk, pipe: PipeNode, dotIsRoot: boolean): void {
  for (const command of pipe.cmds) {
    const [fn, target, key] = command.args;
    if (
      fn?.kind === "identifier" &&
      fn.ident === "index" &&
      key?.kind === "string" &&
      target !== undefined &&
      isRootHead(walk, target, dotIsRoot)
    ) {
      walk.found.push({
        path: [key.text],
        pos: startOf(walk.text, target.kind === "variable" ? "$" : `.${walk.head}`, target.pos),
      });
    }
    for (const arg of command.args) walkArg(walk, arg, dotIsRoot);
  }
}

function walkList(walk: Walk, list: ListNode | null, dotIsRoot: boolean): void {
  for (const node of list?.nodes ?? []) walkNode(walk, node, dotIsRoot);
}

function walkNode(walk: Walk, node: Node, dotIsRoot: boolean): void {
  switch (node.kind) {
    case "action":
      walkPipe(walk, node.pipe, dotIsRoot);
      return;
    case "if":
      walkPipe(walk, node.pipe, dotIsRoot);
      walkList(walk, node.list, dotIsRoot);
      walkList(walk, node.elseList, dotIsRoot);
      return;
    case "with":
    case "range":
      // The body sees the pipeline's value as dot; the else branch keeps the outer dot.
      walkPipe(walk, node.pipe, dotIsRoot);
      walkList(walk, node.list, false);
      walkList(walk, node.elseList, dotIsRoot);
      return;
    case "template":
      if (node.pipe) walkPipe(walk, node.pipe, dotIsRoot);
      return;
    case "list":
      walkList(walk, node, dotIsRoot);
      return;
    default:
      return;
  }
}

/**
 * Every `.<head>.<name>` read from the root data in `trees`, in source order, duplicates kept
 * (callers report each place). `mainName` is the template's own name: its tree starts with dot
 * and `$` at the root; `define`d trees do not.
 */
export function rootFieldReferences(
  text: string,
  trees: ReadonlyMap<string, Tree>,
  mainName: string,
  head: string,
): FieldReference[] {
  const found: { path: string[]; pos: number }[] = [];
  for (const [name, tree] of trees) {
    const main = name === mainName;
    walkList({ text, head, found, dollarIsRoot: main }, tree.root, main);
  }
  return found
    .sort((a, b) => a.pos - b.pos)
    .map(({ path, pos }) => ({ name: path[0] ?? "", path, ...positionOf(text, pos) }));
}
