/**
 * Author-defined conditions (docs/reference/kro-reference.md §6.11), read off the parsed
 * expression.
 *
 * kro writes `runtime.newCondition({type: 'X', status: 'True', reason: '', message: ''})` with
 * bare identifier keys, which a parse-time macro in kro turns into string keys. cel-js has no
 * macros, so `normalizeConditionKeys` does the same on the source text (keys located by the AST),
 * with kro's key rules: a map literal; keys bare identifiers among type/status/reason/message, no
 * duplicates; type and status required. `analyzeAuthorCondition` then checks the normalised
 * expression: it returns a condition or a list of them; a literal status is True|False|Unknown; a
 * literal type is non-empty; `runtime.condition(schema, 'T')` with a literal T names a built-in.
 * Issues have an empty path: the caller knows where the expression sits.
 */
import { error, type Issue } from "../diag/index.js";
import type { KroCelEnvironment } from "./environment.js";
import { parseCel } from "./parse.js";

export const CONDITION_CODES = {
  notACondition: "condition.not-a-condition",
  mapLiteral: "condition.map-literal",
  keyNotLiteral: "condition.key-not-literal",
  unknownField: "condition.unknown-key",
  duplicateKey: "condition.duplicate-key",
  missingField: "condition.missing-field",
  invalidStatus: "condition.invalid-status",
  emptyType: "condition.empty-type",
  notBuiltin: "condition.not-builtin",
  duplicateType: "condition.duplicate-type",
} as const;

export const BUILTIN_CONDITION_TYPES = ["Ready", "InstanceManaged", "GraphResolved", "ResourcesReady"] as const;
const FIELDS = ["type", "status", "reason", "message"];
const STATUSES = ["True", "False", "Unknown"];

interface AstNode {
  readonly op: string;
  readonly args: unknown;
}
const isNode = (v: unknown): v is AstNode =>
  typeof v === "object" && v !== null && typeof (v as AstNode).op === "string" && "args" in v;
const literalString = (v: unknown): string | undefined =>
  isNode(v) && v.op === "value" && typeof v.args === "string" ? v.args : undefined;

/** `runtime.<name>(args…)` → its arguments; undefined for any other node. */
function runtimeCall(node: AstNode, name: string): readonly unknown[] | undefined {
  if (node.op !== "rcall" || !Array.isArray(node.args)) return undefined;
  const [called, receiver, args] = node.args as [unknown, unknown, unknown];
  const isRuntime = isNode(receiver) && receiver.op === "id" && receiver.args === "runtime";
  return called === name && isRuntime && Array.isArray(args) ? args : undefined;
}

export interface AuthorConditionAnalysis {
  readonly issues: readonly Issue[];
  /** Condition types written as literals, for the duplicate check across entries. */
  readonly literalTypes: readonly string[];
}

interface Located {
  readonly start: number;
  readonly end: number;
}
const isLocated = (v: unknown): v is AstNode & Located =>
  isNode(v) && typeof (v as Partial<Located>).start === "number" && typeof (v as Partial<Located>).end === "number";

/** Every `runtime.newCondition(...)` call in the tree, outermost first. */
function newConditionCalls(node: unknown, into: (readonly unknown[])[] = []): (readonly unknown[])[] {
  if (Array.isArray(node)) {
    for (const item of node) newConditionCalls(item, into);
    return into;
  }
  if (!isNode(node)) return into;
  const args = runtimeCall(node, "newCondition");
  if (args !== undefined) into.push(args);
  if (typeof node.args === "object" && node.args !== null) newConditionCalls(Object.values(node.args), into);
  return into;
}

/** kro's macro rules for one call's argument; the first problem only (the macro stops there). */
function keyRewrites(args: readonly unknown[]): {
  issue?: Issue;
  rewrites: { start: number; end: number; text: string }[];
} {
  const [map] = args;
  if (!isNode(map) || map.op !== "map" || !Array.isArray(map.args)) {
    return {
      issue: error(CONDITION_CODES.mapLiteral, [], "runtime.newCondition: argument must be a map literal"),
      rewrites: [],
    };
  }
  const seen = new Set<string>();
  const rewrites: { start: number; end: number; text: string }[] = [];
  for (const entry of map.args as unknown[]) {
    const [key] = Array.isArray(entry) ? (entry as unknown[]) : [];
    if (!isLocated(key) || key.op !== "id" || typeof key.args !== "string") {
      return {
        issue: error(
          CONDITION_CODES.keyNotLiteral,
          [],
          `runtime.newCondition: keys must be bare identifiers (${FIELDS.join(", ")}); quoted or computed keys are not allowed`,
        ),
        rewrites: [],
      };
    }
    const name = key.args;
    if (!FIELDS.includes(name))
      return {
        issue: error(
          CONDITION_CODES.unknownField,
          [],
          `runtime.newCondition: unknown key "${name}" (allowed: ${FIELDS.join(", ")})`,
        ),
        rewrites: [],
      };
    if (seen.has(name))
      return {
        issue: error(CONDITION_CODES.duplicateKey, [], `runtime.newCondition: duplicate key "${name}"`),
        rewrites: [],
      };
    seen.add(name);
    rewrites.push({ start: key.start, end: key.end, text: JSON.stringify(name) });
  }
  for (const required of ["type", "status"]) {
    if (!seen.has(required))
      return {
        issue: error(CONDITION_CODES.missingField, [], `runtime.newCondition: '${required}' is required`),
        rewrites: [],
      };
  }
  return { rewrites };
}

export interface NormalizedCondition {
  /** The expression with every newCondition key quoted; only meaningful without issues. */
  readonly expression: string;
  readonly issues: readonly Issue[];
}

/** Throws when the expression does not parse; the caller reports that with a path. */
export function normalizeConditionKeys(env: KroCelEnvironment, expression: string): NormalizedCondition {
  const ast: unknown = parseCel(env.evaluation, expression).ast;
  const issues: Issue[] = [];
  const rewrites: { start: number; end: number; text: string }[] = [];
  for (const args of newConditionCalls(ast)) {
    const result = keyRewrites(args);
    if (result.issue !== undefined) issues.push(result.issue);
    rewrites.push(...result.rewrites);
  }
  let text = expression;
  for (const r of rewrites.sort((a, b) => b.start - a.start))
    text = text.slice(0, r.start) + r.text + text.slice(r.end);
  return { expression: text, issues };
}

/** Value checks on a normalised call (string keys): literal status and type. */
function checkNewCondition(args: readonly unknown[], issues: Issue[], types: string[]): void {
  const [map] = args;
  if (!isNode(map) || map.op !== "map" || !Array.isArray(map.args)) return;
  const values = new Map<string, unknown>();
  for (const entry of map.args as unknown[]) {
    const [key, value] = Array.isArray(entry) ? (entry as unknown[]) : [];
    const name = literalString(key);
    if (name !== undefined) values.set(name, value);
  }
  const status = literalString(values.get("status"));
  if (status !== undefined && !STATUSES.includes(status))
    issues.push(
      error(CONDITION_CODES.invalidStatus, [], `condition status must be True, False or Unknown, got "${status}"`),
    );
  const type = literalString(values.get("type"));
  if (type === "") issues.push(error(CONDITION_CODES.emptyType, [], "condition type must not be empty"));
  else if (type !== undefined) types.push(type);
}

/** The expression's result must be a condition, a list literal of them, a map() producing them, or a choice between them. */
function checkResult(node: unknown, issues: Issue[], types: string[]): boolean {
  if (!isNode(node)) return false;
  const args = runtimeCall(node, "newCondition");
  if (args !== undefined) {
    checkNewCondition(args, issues, types);
    return true;
  }
  if (node.op === "list" && Array.isArray(node.args))
    return (node.args as unknown[]).every((item) => checkResult(item, issues, types));
  if (node.op === "?:" && Array.isArray(node.args)) {
    const [, then, otherwise] = node.args as unknown[];
    return checkResult(then, issues, types) && checkResult(otherwise, issues, types);
  }
  if (node.op === "rcall" && Array.isArray(node.args) && node.args[0] === "map") {
    const mapArgs: unknown = (node.args as unknown[])[2];
    return Array.isArray(mapArgs) && checkResult(mapArgs[mapArgs.length - 1], issues, types);
  }
  return false;
}

/** `runtime.condition(schema, 'T')` anywhere: T must be a built-in (author types cannot read themselves). */
function checkConditionReads(node: unknown, issues: Issue[]): void {
  if (Array.isArray(node)) {
    for (const item of node) checkConditionReads(item, issues);
    return;
  }
  if (!isNode(node)) return;
  const args = runtimeCall(node, "condition");
  if (args !== undefined) {
    const [subject, typeArg] = args;
    const type = literalString(typeArg);
    const onInstance = isNode(subject) && subject.op === "id" && subject.args === "schema";
    if (onInstance && type !== undefined && !(BUILTIN_CONDITION_TYPES as readonly string[]).includes(type)) {
      issues.push(
        error(
          CONDITION_CODES.notBuiltin,
          [],
          `runtime.condition(schema, "${type}") reads kro's built-in conditions; "${type}" is not one of ${BUILTIN_CONDITION_TYPES.join(", ")}`,
        ),
      );
    }
  }
  if (typeof node.args === "object" && node.args !== null) checkConditionReads(Object.values(node.args), issues);
}

/** Checks a normalised expression (see normalizeConditionKeys); throws when it does not parse. */
export function analyzeAuthorCondition(env: KroCelEnvironment, expression: string): AuthorConditionAnalysis {
  const ast: unknown = parseCel(env.evaluation, expression).ast;
  const issues: Issue[] = [];
  const types: string[] = [];
  if (!checkResult(ast, issues, types)) {
    issues.push(
      error(
        CONDITION_CODES.notACondition,
        [],
        `a condition must be runtime.newCondition({...}) or a list of them (e.g. xs.map(x, runtime.newCondition({...}))), got ${JSON.stringify(expression)}`,
      ),
    );
  }
  checkConditionReads(ast, issues);
  return { issues, literalTypes: types };
}
