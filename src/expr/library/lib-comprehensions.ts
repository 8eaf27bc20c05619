/**
 * Macros cel-js lacks: cel-go ext.TwoVarComprehensions (all/exists/existsOne with two variables,
 * transformList, transformMap, transformMapEntry) and ext.Lists' sortBy. Each binds its iteration
 * variables through cel-js overlay contexts, exactly like the built-in cel.bind macro.
 */
import { compareValues } from "../compare.js";
import { LibraryError, isCelMap, makeMap, mapEntries, type CelEnvironment } from "../lib-support.js";
import {
  identifierOf,
  iterationPairs,
  iterationTypes,
  type CelType,
  type CheckContext,
  type MacroCall,
  type MacroChecker,
  type MacroEvaluator,
  type MacroNode,
  type OverlayContext,
} from "../macro-support.js";

type Kind = "all" | "exists" | "existsOne" | "transformList" | "transformMap" | "transformMapEntry";

interface TwoVarMacro {
  readonly kind: Kind;
  readonly receiver: MacroNode;
  readonly first: string;
  readonly second: string;
  readonly filter: MacroNode | undefined;
  readonly body: MacroNode;
  outer?: OverlayContext;
  inner?: OverlayContext;
  /** The map's keys are ints: cel-js stores an int-keyed map literal as an object (string keys). */
  intKeys?: boolean;
  typeCheck(chk: MacroChecker, m: TwoVarMacro, ctx: CheckContext): CelType;
  evaluate(ev: MacroEvaluator, m: TwoVarMacro, ctx: unknown): unknown;
}

function checkTwoVar(chk: MacroChecker, m: TwoVarMacro, ctx: CheckContext): CelType {
  const range = chk.check(m.receiver, ctx);
  const [t1, t2] = iterationTypes(chk, range);
  m.intKeys = range.kind === "map" && t1.name === "int";
  m.outer = ctx.forkWithVariable(m.first, t1);
  m.inner = m.outer.forkWithVariable(m.second, t2);
  if (m.filter !== undefined) chk.check(m.filter, m.inner);
  const body = chk.check(m.body, m.inner);
  switch (m.kind) {
    case "all":
    case "exists":
    case "existsOne":
      return chk.getType("bool");
    case "transformList":
      return chk.registry.getListType(body);
    case "transformMap":
      return chk.registry.getMapType(t1, body);
    case "transformMapEntry":
      return body.kind === "map" ? body : chk.getType("map");
  }
}

function evalTwoVar(ev: MacroEvaluator, m: TwoVarMacro, ctx: unknown): unknown {
  const { outer, inner } = m;
  if (outer === undefined || inner === undefined)
    throw new LibraryError("internal", `${m.kind}: macro evaluated before type check`);
  const run = (node: MacroNode, k: unknown, v: unknown): unknown => {
    const c1 = outer.reuse(ctx).setIterValue(k, ev);
    return ev.run(node, inner.reuse(c1).setIterValue(v, ev));
  };
  const receiver = ev.run(m.receiver, ctx);
  let pairs = iterationPairs(receiver);
  if (m.intKeys === true && !(receiver instanceof Map))
    pairs = pairs.map(([k, v]) => [typeof k === "string" ? BigInt(k) : k, v]);
  const keep = (k: unknown, v: unknown): boolean => m.filter === undefined || asBool(run(m.filter, k, v), m.kind);
  switch (m.kind) {
    case "all":
    case "exists":
    case "existsOne":
      return quantify(m.kind, pairs, (k, v) => asBool(run(m.body, k, v), m.kind));
    case "transformList":
      return pairs.filter(([k, v]) => keep(k, v)).map(([k, v]) => run(m.body, k, v));
    case "transformMap":
      return makeMap(pairs.filter(([k, v]) => keep(k, v)).map(([k, v]) => [k, run(m.body, k, v)] as const));
    case "transformMapEntry": {
      const entries: [unknown, unknown][] = [];
      for (const [k, v] of pairs) {
        if (!keep(k, v)) continue;
        const entry = run(m.body, k, v);
        if (!isCelMap(entry))
          throw new LibraryError("invalid_argument", "transformMapEntry: expression must return a map");
        for (const [ek, evv] of mapEntries(entry)) {
          if (entries.some(([x]) => x === ek))
            throw new LibraryError("invalid_argument", `transformMapEntry: duplicate key: ${String(ek)}`);
          entries.push([ek, evv]);
        }
      }
      return makeMap(entries);
    }
  }
}

/** CEL quantifier semantics: an error only surfaces when no element decides the result. */
function quantify(
  kind: "all" | "exists" | "existsOne",
  pairs: [unknown, unknown][],
  test: (k: unknown, v: unknown) => boolean,
): boolean {
  let firstError: unknown;
  let count = 0;
  for (const [k, v] of pairs) {
    let ok: boolean;
    try {
      ok = test(k, v);
    } catch (e) {
      if (kind === "existsOne") throw e;
      firstError ??= e;
      continue;
    }
    if (kind === "all" && !ok) return false;
    if (kind === "exists" && ok) return true;
    if (ok) count++;
  }
  if (firstError !== undefined)
    throw firstError instanceof Error ? firstError : new Error("comprehension predicate failed");
  return kind === "all" ? true : kind === "exists" ? false : count === 1;
}

function asBool(v: unknown, what: string): boolean {
  if (typeof v !== "boolean") throw new LibraryError("invalid_argument", `${what}: predicate must return bool`);
  return v;
}

function twoVar(kind: Kind, withFilter: boolean) {
  return ({ args, receiver }: MacroCall): TwoVarMacro => ({
    kind,
    receiver,
    first: identifierOf(args[0], kind),
    second: identifierOf(args[1], kind),
    filter: withFilter ? args[2] : undefined,
    body: args[withFilter ? 3 : 2] as MacroNode,
    typeCheck: checkTwoVar,
    evaluate: evalTwoVar,
  });
}

interface SortByMacro {
  readonly receiver: MacroNode;
  readonly variable: string;
  readonly key: MacroNode;
  scope?: OverlayContext;
  typeCheck(chk: MacroChecker, m: SortByMacro, ctx: CheckContext): CelType;
  evaluate(ev: MacroEvaluator, m: SortByMacro, ctx: unknown): unknown;
}

function sortBy({ args, receiver }: MacroCall): SortByMacro {
  return {
    receiver,
    variable: identifierOf(args[0], "sortBy"),
    key: args[1] as MacroNode,
    typeCheck(chk, m, ctx) {
      const list = chk.check(m.receiver, ctx);
      m.scope = ctx.forkWithVariable(m.variable, list.valueType ?? chk.getType("dyn"));
      chk.check(m.key, m.scope);
      return list;
    },
    evaluate(ev, m, ctx) {
      const list = ev.run(m.receiver, ctx);
      const scope = m.scope;
      if (!Array.isArray(list) || scope === undefined)
        throw new LibraryError("invalid_argument", "sortBy: receiver must be a list");
      const keyed = list.map(
        (item: unknown) => [ev.run(m.key, scope.reuse(ctx).setIterValue(item, ev)), item] as const,
      );
      return [...keyed].sort((a, b) => compareValues(a[0], b[0])).map(([, item]) => item);
    },
  };
}

export function registerComprehensionsLibrary(env: CelEnvironment): void {
  for (const receiver of ["list", "map"]) {
    env.registerFunction(`${receiver}.all(ast, ast, ast): bool`, twoVar("all", false));
    env.registerFunction(`${receiver}.exists(ast, ast, ast): bool`, twoVar("exists", false));
    env.registerFunction(`${receiver}.existsOne(ast, ast, ast): bool`, twoVar("existsOne", false));
    env.registerFunction(`${receiver}.transformList(ast, ast, ast): list<dyn>`, twoVar("transformList", false));
    env.registerFunction(`${receiver}.transformList(ast, ast, ast, ast): list<dyn>`, twoVar("transformList", true));
    env.registerFunction(`${receiver}.transformMap(ast, ast, ast): map<dyn, dyn>`, twoVar("transformMap", false));
    env.registerFunction(`${receiver}.transformMap(ast, ast, ast, ast): map<dyn, dyn>`, twoVar("transformMap", true));
    env.registerFunction(
      `${receiver}.transformMapEntry(ast, ast, ast): map<dyn, dyn>`,
      twoVar("transformMapEntry", false),
    );
    env.registerFunction(
      `${receiver}.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>`,
      twoVar("transformMapEntry", true),
    );
  }
  env.registerFunction("list.sortBy(ast, ast): list<dyn>", sortBy);
}
