/**
 * A port of Go's text/template executor (exec.go): walking the tree — actions, if/with, range
 * with break and continue, nested templates — on top of the expression evaluator
 * (evaluator.ts). An execution budget (steps and output size) stops runaway templates; the
 * controller must never hang on a user's template.
 */
import { nodeString, type BranchNode, type ListNode, type Node } from "./ast.js";
import {
  formatValue,
  GoInt,
  withWorkMeter,
  GoObject,
  goQuote,
  Iface,
  isMap,
  isStringSlice,
  isTrue,
  sortedKeys,
  unbox,
  type GoValue,
} from "../go/index.js";
import { Evaluator, PLAIN, type ExecContext, type Val } from "./evaluator.js";

export { ExecContext, type Budget, type ExecOptions, type MissingKey } from "./evaluator.js";

/** {{break}} and {{continue}} unwind to their range loop as these signals (Go panics likewise). */
class BranchSignal extends Error {}
const BREAK = new BranchSignal("break");
const CONTINUE = new BranchSignal("continue");
const MAX_EXEC_DEPTH = 1000; // Go's limit under wasm; deeper recursion would exhaust the JS stack

class State extends Evaluator {
  walk(dot: Val, node: Node): void {
    this.step(node);
    switch (node.kind) {
      case "action": {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      case "if":
      case "with": {
        const mark = this.vars.length;
        try {
          const val = this.evalPipeline(dot, node.pipe);
          if (isTrue(val)) this.walk(node.kind === "with" ? val : dot, node.list);
          else if (node.elseList) this.walk(dot, node.elseList);
        } finally {
          this.vars.length = mark;
        }
        return;
      }
      case "list":
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case "range":
        this.walkRange(dot, node);
        return;
      case "template":
        this.walkTemplate(dot, node);
        return;
      case "text":
        this.write(node.text);
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  private walkRange(dot: Val, r: BranchNode): void {
    const mark = this.vars.length;
    try {
      let val = unbox(this.evalPipeline(dot, r.pipe));
      if (val instanceof GoObject && (val.spec.kind === "map" || val.spec.kind === "slice"))
        val = val.underlying as GoValue;
      const inner = this.vars.length;
      const decl = r.pipe.decl;
      const oneIteration = (index: Val, elem: Val): void => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) this.setVar(decl[0]?.ident[0] ?? "", decl.length > 1 ? index : elem);
          else this.setTopVar(1, elem);
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1]?.ident[0] ?? "", elem);
          else this.setTopVar(2, index);
        }
        try {
          this.walk(elem, r.list);
        } catch (e) {
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = inner;
        }
      };
      let ran = false;
      if (val instanceof GoInt) {
        if (decl.length > 1)
          this.errorf(`can't use ${formatValue(val, "v", PLAIN)} to iterate over more than one variable`);
        for (let i = 0n; i < val.value; i++) {
          ran = true;
          oneIteration(undefined, new GoInt(i, val.type));
        }
      } else if (Array.isArray(val)) {
        const typed = isStringSlice(val);
        val.forEach((e, i) => {
          ran = true;
          oneIteration(new GoInt(BigInt(i)), typed ? (e as string) : new Iface(e as GoValue));
        });
      } else if (isMap(val)) {
        for (const k of sortedKeys(val)) {
          ran = true;
          oneIteration(k, new Iface(val[k] as GoValue));
        }
      } else if (val !== undefined) {
        this.errorf(`range can't iterate over ${formatValue(val, "v", PLAIN)}`);
      }
      if (!ran && r.elseList) this.walk(dot, r.elseList);
    } catch (e) {
      if (e !== BREAK) throw e;
    } finally {
      this.vars.length = mark;
    }
  }

  private walkTemplate(dot: Val, t: Extract<Node, { kind: "template" }>): void {
    this.node = t;
    const tree = this.ctx.trees.get(t.name);
    if (tree === undefined) this.errorf(`template ${goQuote(t.name)} not defined`);
    if (this.depth === MAX_EXEC_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
    const newDot = t.pipe ? this.evalPipeline(dot, t.pipe) : undefined;
    new State(this.ctx, t.name, newDot, this.depth + 1).walk(newDot, tree.root);
  }

  private printValue(n: Node, v: Val): void {
    this.node = n;
    this.write(v === undefined ? "<no value>" : formatValue(v, "v", PLAIN));
  }
}

/** Runs tree `name` with `data` as dot and `$`, with the render's budget as the ambient work meter. */
export function execute(ctx: ExecContext, name: string, root: ListNode, data: Val): string {
  withWorkMeter({ budget: ctx.budget, maxSteps: ctx.options.maxSteps, deadline: ctx.options.deadline }, () => {
    new State(ctx, name, data, 0).walk(data, root);
  });
  return ctx.out;
}
