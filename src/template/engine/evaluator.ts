/**
 * The expression half of Go's text/template executor (exec.go): pipelines, variables, field
 * chains on maps and typed values, function calls with Go's argument conversion, and Go's error
 * texts (`template: t:1:5: executing "t" at <.x.y>: …`). Every step and every byte of output is
 * charged to the render's budget. executor.ts walks the tree on top of it.
 */
import { nodeString, type ArgNode, type CommandNode, type Node, type PipeNode } from "./ast.js";
import { TemplateError, positionOf } from "./errors.js";
import { ArgTypeError, convertArg } from "./arg-types.js";
import {
  chargeWork,
  deadlineMessage,
  formatValue,
  FuncError,
  GoInt,
  WORK_COSTS,
  WorkBudgetError,
  type RenderDeadline,
  GoObject,
  goQuote,
  Iface,
  isMap,
  isTrue,
  paramTypeName,
  typeName,
  unbox,
  type FuncMap,
  type GoFunction,
  type GoValue,
  type ParamType,
} from "../go/index.js";
import type { TreeSet } from "./parser.js";

export type MissingKey = "default" | "zero" | "error";
export interface ExecOptions {
  readonly missingKey: MissingKey;
  readonly maxSteps: number;
  readonly maxOutputLength: number;
  /** A wall-clock limit, checked every DEADLINE_EVERY steps and at every charge of work. */
  readonly deadline?: RenderDeadline | undefined;
}

/** Executor values: Go values plus interface boxes. */
export type Val = GoValue | Iface;
const MISSING = Symbol("missingVal");
type Final = Val | typeof MISSING;
const DEADLINE_EVERY = 256;
/** Go's `%v` with no flags. */
export const PLAIN = { minus: false, plus: false, sharp: false, space: false, zero: false };

interface Variable {
  name: string;
  value: Val;
}

/** The step budget, shared by every execution one render starts (include and tpl included). */
export interface Budget {
  steps: number;
}

export class ExecContext {
  out = "";
  constructor(
    readonly text: string,
    readonly parseName: string,
    readonly trees: TreeSet,
    readonly funcs: FuncMap,
    readonly options: ExecOptions,
    readonly budget: Budget = { steps: 0 },
  ) {}
}

export abstract class Evaluator {
  protected node: Node | null = null;
  protected readonly vars: Variable[];
  /** The source of the running tree (its file), for Go's `file:line:col` in errors. */
  private readonly text: string;
  private readonly parseName: string;

  constructor(
    protected readonly ctx: ExecContext,
    protected readonly name: string,
    dot: Val,
    protected readonly depth: number,
  ) {
    this.vars = [{ name: "$", value: dot }];
    const tree = ctx.trees.get(name);
    this.text = tree?.text ?? ctx.text;
    this.parseName = tree?.parseName ?? ctx.parseName;
  }

  errorf(message: string, kind: "exec" | "budget" = "exec"): never {
    const name = this.name;
    if (this.node === null) throw new TemplateError(kind, `template: ${name}: ${message}`, 1, 1);
    const pos = this.node.pos;
    const before = this.text.slice(0, pos);
    const nl = before.lastIndexOf("\n");
    const byteCol = new TextEncoder().encode(before.slice(nl + 1)).length;
    const { line, column } = positionOf(this.text, pos);
    const location = `${this.parseName}:${line}:${byteCol}`;
    throw new TemplateError(
      kind,
      `template: ${location}: executing ${goQuote(name)} at <${nodeString(this.node)}>: ${message}`,
      line,
      column,
      this.parseName,
    );
  }

  protected step(node: Node): void {
    this.node = node;
    if (++this.ctx.budget.steps > this.ctx.options.maxSteps) {
      const { line, column } = positionOf(this.text, node.pos);
      throw new TemplateError(
        "budget",
        `template: ${this.name}: execution budget exceeded (${this.ctx.options.maxSteps} steps)`,
        line,
        column,
      );
    }
    if (this.ctx.budget.steps % DEADLINE_EVERY === 0) {
      const late = deadlineMessage(this.ctx.options.deadline);
      if (late !== undefined) {
        const { line, column } = positionOf(this.text, node.pos);
        throw new TemplateError("budget", `template: ${this.name}: ${late}`, line, column);
      }
    }
  }

  protected write(s: string): void {
    this.ctx.out += s;
    if (this.ctx.out.length > this.ctx.options.maxOutputLength) {
      const { line, column } = positionOf(this.text, this.node?.pos ?? 0);
      throw new TemplateError(
        "budget",
        `template: ${this.name}: output exceeds ${this.ctx.options.maxOutputLength} characters`,
        line,
        column,
      );
    }
  }

  protected varValue(name: string): Val {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]?.name === name) return this.vars[i]?.value;
    this.errorf(`undefined variable: ${name}`);
  }
  protected setVar(name: string, value: Val): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i];
      if (v?.name === name) {
        v.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }
  protected setTopVar(n: number, value: Val): void {
    const v = this.vars[this.vars.length - n];
    if (v) v.value = value;
  }

  evalPipeline(dot: Val, pipe: PipeNode): Val {
    this.node = pipe;
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      if (value instanceof Iface || value === null) value = unbox(value); // dig into interface{}
    }
    const v = value === MISSING ? undefined : value;
    for (const variable of pipe.decl) {
      const name = variable.ident[0] ?? "";
      if (pipe.isAssign) this.setVar(name, v);
      else this.vars.push({ name, value: v });
    }
    return v;
  }

  private notAFunction(args: readonly ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING)
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as ArgNode)}`);
  }

  private evalCommand(dot: Val, cmd: CommandNode, final: Final): Val {
    this.step(cmd);
    const first = cmd.args[0] as ArgNode;
    switch (first.kind) {
      case "field":
        this.node = first;
        return this.evalFieldChain(dot, dot, first, first.ident, cmd.args, final);
      case "chain":
        return this.evalChain(dot, first, cmd.args, final);
      case "identifier":
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariable(dot, first, cmd.args, final);
    }
    this.node = first;
    this.notAFunction(cmd.args, final);
    switch (first.kind) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      case "nil":
        return this.errorf("nil is not a command");
      case "number":
        return this.idealConstant(first);
      case "string":
        return first.text;
    }
  }

  private idealConstant(n: Extract<ArgNode, { kind: "number" }>): Val {
    this.node = n;
    const v = n.value;
    if (v.isComplex) this.errorf(`complex constant ${n.text} is not supported`);
    const hexInt = /^0[xX]/.test(n.text) && !/[pP]/.test(n.text);
    if (v.isFloat && !hexInt && !n.text.startsWith("'") && /[.eEpP]/.test(n.text)) return v.float;
    if (v.isInt) return new GoInt(v.int, "int");
    this.errorf(`${n.text} overflows int`);
  }

  private evalChain(dot: Val, chain: Extract<ArgNode, { kind: "chain" }>, args: readonly ArgNode[], final: Final): Val {
    this.node = chain;
    const pipe = this.evalArg(dot, null, chain.node);
    return this.evalFieldChain(dot, pipe, chain, chain.field, args, final);
  }

  private evalVariable(
    dot: Val,
    v: Extract<ArgNode, { kind: "variable" }>,
    args: readonly ArgNode[],
    final: Final,
  ): Val {
    this.node = v;
    const value = this.varValue(v.ident[0] ?? "");
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(
    dot: Val,
    receiver: Val,
    node: ArgNode,
    ident: readonly string[],
    args: readonly ArgNode[],
    final: Final,
  ): Val {
    let r = receiver;
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(dot, ident[i] ?? "", [], MISSING, r);
    return this.evalField(dot, ident[ident.length - 1] ?? "", args, final, r);
  }

  private evalField(dot: Val, fieldName: string, args: readonly ArgNode[], final: Final, receiver: Val): Val {
    if (receiver === undefined) {
      if (this.ctx.options.missingKey === "error") this.errorf(`nil data; no entry for key ${goQuote(fieldName)}`);
      return undefined;
    }
    const typ = receiver === null ? "interface {}" : typeName(receiver);
    const r = receiver instanceof Iface ? receiver.inner : receiver;
    if (r === null) this.errorf(`nil pointer evaluating ${typ}.${fieldName}`);
    if (r instanceof GoObject) return this.evalObjectField(dot, fieldName, args, final, r, typ);
    if (isMap(r)) {
      if (args.length > 1 || final !== MISSING) this.errorf(`${fieldName} is not a method but has arguments`);
      if (Object.hasOwn(r, fieldName)) return new Iface(r[fieldName] as GoValue);
      if (this.ctx.options.missingKey === "zero") return new Iface(null);
      if (this.ctx.options.missingKey === "error") this.errorf(`map has no entry for key ${goQuote(fieldName)}`);
      return undefined;
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  /** Go's evalField on a typed value: a method wins, then a struct field or a map key. */
  private evalObjectField(
    dot: Val,
    fieldName: string,
    args: readonly ArgNode[],
    final: Final,
    r: GoObject,
    typ: string,
  ): Val {
    const node = this.node as Node;
    const method = r.method(fieldName);
    if (method !== undefined) return this.evalCall(dot, method, node, fieldName, args, final);
    const hasArgs = args.length > 1 || final !== MISSING;
    if (r.spec.kind === "struct") {
      const fields = r.spec.fields ?? {};
      if (Object.hasOwn(fields, fieldName)) {
        if (hasArgs) this.errorf(`${fieldName} has arguments, cannot call field`);
        return fields[fieldName] as Val;
      }
    } else if (r.spec.kind === "map" && isMap(r.spec.value)) {
      const m = r.spec.value;
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      if (Object.hasOwn(m, fieldName)) return m[fieldName] as Val;
      if (this.ctx.options.missingKey === "zero" && r.spec.zeroElem !== undefined) return r.spec.zeroElem as Val;
      if (this.ctx.options.missingKey === "error") this.errorf(`map has no entry for key ${goQuote(fieldName)}`);
      return undefined;
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  private evalFunction(
    dot: Val,
    node: Extract<ArgNode, { kind: "identifier" }>,
    cmd: Node,
    args: readonly ArgNode[],
    final: Final,
  ): Val {
    this.node = node;
    const fn = this.ctx.funcs[node.ident];
    if (fn === undefined) this.errorf(`${goQuote(node.ident)} is not a defined function`);
    return this.evalCall(dot, fn, cmd, node.ident, args, final);
  }

  private evalCall(dot: Val, fn: GoFunction, node: Node, name: string, allArgs: readonly ArgNode[], final: Final): Val {
    const args = allArgs.slice(1);
    const numIn = args.length + (final === MISSING ? 0 : 1);
    let numFixed = args.length;
    if (fn.variadic !== undefined) {
      numFixed = fn.params.length;
      if (numIn < numFixed)
        this.errorf(`wrong number of args for ${name}: want at least ${fn.params.length} got ${args.length}`);
    } else if (numIn !== fn.params.length)
      this.errorf(`wrong number of args for ${name}: want ${fn.params.length} got ${numIn}`);
    if (fn.special === "and" || fn.special === "or") {
      let v: Val = undefined;
      for (const arg of args) {
        v = this.evalArg(dot, "value", arg);
        if (isTrue(v) === (fn.special === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: unknown[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++)
      argv.push(this.evalArg(dot, fn.params[i] ?? "any", args[i] as ArgNode));
    if (fn.variadic !== undefined)
      for (; i < args.length; i++) argv.push(this.evalArg(dot, fn.variadic, args[i] as ArgNode));
    if (final !== MISSING) {
      let t: ParamType = fn.params[fn.params.length - 1] ?? "any";
      if (fn.variadic !== undefined) t = numIn - 1 < numFixed ? (fn.params[numIn - 1] ?? "any") : fn.variadic;
      argv.push(this.validateType(final, t));
    }
    if (fn.special === "call") {
      this.node = node;
      return this.call(allArgs, final, argv[0] as Val);
    }
    try {
      const result = (fn.fn as (...a: unknown[]) => unknown)(...argv);
      chargeResult(name, result, argv);
      return result === null ? new Iface(null) : (result as Val);
    } catch (e) {
      if (!(e instanceof FuncError)) throw e;
      this.node = node;
      if (e instanceof WorkBudgetError) this.errorf(`error calling ${name}: ${e.message}`, "budget");
      if (e.origin === undefined) this.errorf(`error calling ${name}: ${e.message}`);
      try {
        this.errorf(`error calling ${name}: ${e.message}`);
      } catch (outer) {
        if (!(outer instanceof TemplateError)) throw outer;
        throw new TemplateError(outer.kind, outer.message, e.origin.line, e.origin.column, e.origin.file);
      }
    }
  }

  /** Go's `call`: data never holds functions, so this reports what Go reports for non-functions. */
  private call(allArgs: readonly ArgNode[], final: Final, fnArg: Val): never {
    const callee =
      allArgs.length > 1 ? nodeString(allArgs[1] as ArgNode) : final === MISSING ? "" : formatValue(final, "v", PLAIN);
    const fn = unbox(fnArg);
    this.errorf(
      `error calling call: ${fn === undefined ? "call of nil" : `non-function ${callee} of type ${typeName(fn)}`}`,
    );
  }

  private validateType(value: Val, typ: ParamType | null): Val {
    const r = convertArg(value, typ);
    return r instanceof ArgTypeError ? this.errorf(r.message) : r;
  }

  private evalArg(dot: Val, typ: ParamType | null, n: ArgNode): Val {
    this.node = n;
    switch (n.kind) {
      case "dot":
        return this.validateType(dot, typ);
      case "nil":
        if (typ === "value") return undefined;
        if (typ === null || typ === "any" || typ === "map" || typ === "slice")
          return typ === "map" ? {} : typ === "slice" ? [] : null;
        return this.errorf(`cannot assign nil to ${paramTypeName(typ)}`);
      case "field":
        return this.validateType(this.evalFieldChain(dot, dot, n, n.ident, [n], MISSING), typ);
      case "variable":
        return this.validateType(this.evalVariable(dot, n, [], MISSING), typ);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, n), typ);
      case "identifier":
        return this.validateType(this.evalFunction(dot, n, n, [n], MISSING), typ);
      case "chain":
        return this.validateType(this.evalChain(dot, n, [], MISSING), typ);
    }
    switch (typ) {
      case "bool":
        return n.kind === "bool" ? n.value : this.errorf(`expected bool; found ${nodeString(n)}`);
      case "float64":
        return n.kind === "number" && n.value.isFloat
          ? n.value.float
          : this.errorf(`expected float; found ${nodeString(n)}`);
      case "int":
      case "int64":
        return n.kind === "number" && n.value.isInt
          ? new GoInt(n.value.int, typ)
          : this.errorf(`expected integer; found ${nodeString(n)}`);
      case "string":
        return n.kind === "string" ? n.text : this.errorf(`expected string; found ${nodeString(n)}`);
      case "map":
      case "slice":
      case "time":
        return this.errorf(`can't handle ${nodeString(n)} for arg of type ${paramTypeName(typ)}`);
      default:
        if (n.kind === "bool") return n.value;
        if (n.kind === "number") return this.idealConstant(n);
        return n.text;
    }
  }
}

/**
 * What a function built is charged by its size (strings by length, lists and maps by element):
 * a result that is one of its arguments (`set` returns its dict) was paid for already.
 */
function chargeResult(name: string, result: unknown, argv: readonly unknown[]): void {
  if (result === null || result === undefined || typeof result === "boolean" || typeof result === "number") return;
  if (argv.includes(result)) return;
  if (typeof result === "string") {
    if (result.length > 64)
      chargeWork(
        Math.ceil(result.length / WORK_COSTS.charsPerUnit),
        () => `the ${result.length} characters ${name} built`,
      );
    return;
  }
  if (Array.isArray(result)) {
    const n = result.length;
    chargeWork(n * WORK_COSTS.element, () => `the ${n} elements ${name} built`);
    return;
  }
  if (isMap(result)) {
    const n = Object.keys(result).length;
    chargeWork(n * WORK_COSTS.element, () => `the ${n} keys ${name} built`);
  }
}
