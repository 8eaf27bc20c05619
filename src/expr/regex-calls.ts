/**
 * CEL's regex functions on RE2 (linear time), as in cel-go and the Kubernetes libraries.
 * cel-js builds `string.matches` in with a backtracking JavaScript RegExp and refuses a second
 * overload of the same signature, so each parsed AST has its `matches` calls routed to our own
 * hidden function instead (the type checker sees the standard signature either way).
 * Literal patterns are also checked at compile time, so a pattern RE2 rejects is a compile error.
 */
import { GoRegexpSyntaxError, compileGoRegexpCached, type GoRegexp } from "../schema/index.js";
import { walkAst } from "./ast-walk.js";
import { LibraryError, type CelEnvironment, type LibraryContext } from "./lib-support.js";

/** The name our RE2 `matches` is registered under; calls to `matches` are renamed to it. */
const RE2_MATCHES = "kroRe2Matches";

const REGEX_METHODS = new Set(["matches", "find", "findAll"]);

interface Node {
  op: string;
  args: unknown;
}
const isNode = (v: unknown): v is Node =>
  typeof v === "object" && v !== null && typeof (v as Node).op === "string" && "args" in v;

/** Compiles with Go's dialect; a bad pattern met at run time is an evaluation error. */
export function goRegexp(pattern: string): GoRegexp {
  try {
    return compileGoRegexpCached(pattern);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError)
      throw new LibraryError("invalid_argument", `invalid regex ${JSON.stringify(pattern)}: ${e.message}`);
    throw e;
  }
}

export function registerRegexLibrary(env: CelEnvironment, lib: LibraryContext): void {
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (s: string, p: string) => {
    lib.charge(1 + Math.ceil((s.length + p.length) / 10));
    return goRegexp(p).test(s);
  });
  env.registerFunction("string.find(string): string", (s: string, p: string) => {
    lib.charge(1 + Math.ceil((s.length + p.length) / 10));
    return goRegexp(p).find(s)?.text ?? "";
  });
  env.registerFunction("string.findAll(string): list<string>", (s: string, p: string) => {
    lib.charge(1 + Math.ceil((s.length + p.length) / 10));
    return goRegexp(p)
      .findAll(s)
      .map((m) => m.text);
  });
  env.registerFunction("string.findAll(string, int): list<string>", (s: string, p: string, n: bigint) => {
    lib.charge(1 + Math.ceil((s.length + p.length) / 10));
    return goRegexp(p)
      .findAll(s, n < 0n ? -1 : Number(n > 1_000_000n ? 1_000_000n : n))
      .map((m) => m.text);
  });
}

/** Renames every `x.matches(p)` in a parsed AST to the RE2 implementation. */
export function routeRegexCalls(ast: unknown): void {
  walk(ast, (node) => {
    if (node.op !== "rcall" || !Array.isArray(node.args) || node.args[0] !== "matches") return;
    const fnArgs: unknown = node.args[2];
    if (Array.isArray(fnArgs) && fnArgs.length === 1) node.args[0] = RE2_MATCHES;
  });
}

/** Literal patterns of matches/find/findAll that RE2 rejects: one message each. */
export function invalidRegexLiterals(ast: unknown): string[] {
  const problems: string[] = [];
  walk(ast, (node) => {
    if (node.op !== "rcall" || !Array.isArray(node.args)) return;
    const [name, , fnArgs] = node.args as [unknown, unknown, unknown];
    if (typeof name !== "string" || !REGEX_METHODS.has(name) || !Array.isArray(fnArgs)) return;
    const first: unknown = fnArgs[0];
    if (!isNode(first) || first.op !== "value" || typeof first.args !== "string") return;
    try {
      compileGoRegexpCached(first.args);
    } catch (e) {
      if (e instanceof GoRegexpSyntaxError)
        problems.push(`${name}(): invalid regular expression ${JSON.stringify(first.args)}: ${e.message}`);
      else throw e;
    }
  });
  return problems;
}

const walk = (root: unknown, visit: (node: Node) => void): void => {
  walkAst(root, isNode, visit);
};
