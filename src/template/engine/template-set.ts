/**
 * A set of named templates shared by many files, as Go's `template.New(root)` plus one
 * `t.New(file).Parse(text)` per file builds it (and as Helm builds a chart's): every `define`
 * of every file is visible to every other, a later non-empty definition replaces an earlier
 * one, and an empty one never replaces a real one (Go's `associate`). Each tree keeps its own
 * file name and text, so errors point into the file that holds the failing action.
 */
import { TemplateError } from "./errors.js";
import { ExecContext, execute, type Budget, type MissingKey } from "./executor.js";
import { functionTable } from "./funcs-all.js";
import { fromJson, goQuote, Iface, type FuncMap, type GoValue, type RenderDeadline } from "../go/index.js";

const DEFAULT_MAX_STEPS = 10_000_000;
import { isEmptyTreeRoot, parseTrees, type Tree, type TreeSet } from "./parser.js";

export interface TemplateSource {
  readonly name: string;
  readonly text: string;
}

export interface TemplateSet {
  /** The root template's name (Go's `t.Name()`): what "no template … associated with" names. */
  readonly name: string;
  /** Every named template: one per file, plus each `define`/`block`. */
  readonly trees: TreeSet;
  /** The functions known when parsing (a call to any other name is a parse error). */
  readonly funcs: FuncMap;
}

export interface SetParseOptions {
  /** Extra functions (they win over built-ins and Sprig); read once per map object, so do not change it afterwards. */
  readonly funcs?: FuncMap;
  /** Include Sprig (default true). */
  readonly sprig?: boolean;
}

export interface SetExecuteOptions {
  readonly missingKey?: MissingKey;
  /** How integral JSON numbers in `data` behave (default "int64"; Helm's values are "float64"). */
  readonly integers?: "int64" | "float64";
  readonly maxSteps?: number;
  readonly maxOutputLength?: number;
  /** Functions bound to this execution (Helm's include/tpl close over the set); they win over the set's. */
  readonly funcs?: FuncMap;
  /** A step budget shared with enclosing executions (include, tpl). */
  readonly budget?: Budget;
  /** A wall-clock limit for the execution (see RenderOptions.deadline). */
  readonly deadline?: RenderDeadline | undefined;
}

/** An empty set whose root template is `name` (Helm's is "gotpl"). */
export function createTemplateSet(name: string, options: SetParseOptions = {}): TemplateSet {
  return { name, trees: new Map(), funcs: functionTable(options.sprig ?? true, options.funcs) };
}

/** Go's AddParseTree/associate: an empty tree never replaces a non-empty one. */
function associate(trees: TreeSet, tree: Tree): void {
  const old = trees.get(tree.name);
  if (old !== undefined && isEmptyTreeRoot(tree.root)) return;
  trees.set(tree.name, tree);
}

/**
 * Parses `text` as template `name` into the set (Go's `t.New(name).Parse(text)`); returns the
 * file's own tree. Throws TemplateError (kind "parse", `file` set) and leaves the set unchanged.
 */
export function addTemplate(set: TemplateSet, name: string, text: string): Tree {
  let parsed: TreeSet;
  try {
    parsed = parseTrees(name, text, (f) => Object.hasOwn(set.funcs, f));
  } catch (e) {
    if (e instanceof TemplateError) throw new TemplateError(e.kind, e.message, e.line, e.column, name);
    if (e instanceof RangeError)
      throw new TemplateError("parse", `template: ${name}: template nests too deeply to parse`, 1, 1, name);
    throw e;
  }
  for (const tree of parsed.values()) associate(set.trees, tree);
  return parsed.get(name) ?? { name, root: { kind: "list", pos: 0, nodes: [] }, parseName: name, text };
}

/** Parses every file into one new set, in the given order (later definitions win). */
export function parseTemplateSet(
  root: string,
  files: readonly TemplateSource[],
  options: SetParseOptions = {},
): TemplateSet {
  const set = createTemplateSet(root, options);
  for (const f of files) addTemplate(set, f.name, f.text);
  return set;
}

/** A copy whose later additions do not affect `set` (Go's Clone; trees are immutable). */
export function cloneTemplateSet(set: TemplateSet): TemplateSet {
  return { name: set.name, trees: new Map(set.trees), funcs: set.funcs };
}

/**
 * Executes template `name` of the set with JSON-like `data` (Go's ExecuteTemplate). Throws
 * TemplateError (kind "exec" or "budget") with Go's message and the failing file's position.
 */
export function executeTemplate(
  set: TemplateSet,
  name: string,
  data: unknown,
  options: SetExecuteOptions = {},
): string {
  return executeTree(set, name, undefined, fromJson(data, options.integers ?? "int64"), options);
}

/**
 * Like executeTemplate, for data that is already an executor value (what a template function
 * receives, e.g. include's argument), and optionally for a tree that is not (yet) in the set.
 */
export function executeTree(
  set: TemplateSet,
  name: string,
  tree: Tree | undefined,
  data: GoValue | Iface,
  options: SetExecuteOptions = {},
): string {
  const trees = tree === undefined ? set.trees : new Map(set.trees).set(name, tree);
  const run = trees.get(name);
  if (run === undefined)
    throw new TemplateError(
      "exec",
      `template: no template ${goQuote(name)} associated with template ${goQuote(set.name)}`,
      1,
      1,
    );
  const funcs = options.funcs === undefined ? set.funcs : { ...set.funcs, ...options.funcs };
  const ctx = new ExecContext(
    run.text,
    run.parseName,
    trees,
    funcs,
    {
      missingKey: options.missingKey ?? "default",
      maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
      maxOutputLength: options.maxOutputLength ?? 4 * 1024 * 1024,
      deadline: options.deadline,
    },
    options.budget,
  );
  try {
    const dot = data instanceof Iface ? data.inner : data; // Go's reflect.ValueOf(data): the concrete value
    return execute(ctx, name, run.root, dot === null ? undefined : dot);
  } catch (e) {
    if (e instanceof RangeError)
      throw new TemplateError("budget", `template: ${name}: execution nests too deeply`, 1, 1, run.parseName);
    throw e;
  }
}
