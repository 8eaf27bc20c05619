/**
 * Pieces of cel-go's optional library (cel.OptionalTypes, which kro enables) that cel-js 8 lacks:
 * `optional.ofNonZeroValue(x)`, the `optMap` / `optFlatMap` macros, `==` / `!=` between
 * optionals, and `type()` of an optional. The macros bind their variable through cel-js overlay contexts, like cel.bind.
 */
import { Optional } from "@marcbachmann/cel-js";
import { isCelMap, LibraryError, type CelEnvironment } from "../lib-support.js";
import {
  identifierOf,
  type CelType,
  type CheckContext,
  type MacroCall,
  type MacroChecker,
  type MacroEvaluator,
  type MacroNode,
  type OverlayContext,
} from "../macro-support.js";

/** cel-go's zero values: null, false, 0, 0u, 0.0, "", b"", [], {}, a zero duration. */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === false || v === 0 || v === 0n || v === "") return true;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Optional) return !v.hasValue();
  if (v instanceof Date) return v.getTime() === 0;
  if (typeof v === "object" && v.constructor.name === "UnsignedInt")
    return (v as { valueOf(): bigint }).valueOf() === 0n;
  if (typeof v === "object" && v.constructor.name === "Duration") {
    const d = v as { seconds: bigint; nanos: number };
    return d.seconds === 0n && d.nanos === 0;
  }
  if (isCelMap(v)) return Object.keys(v).length === 0;
  return false;
}

interface OptMacro {
  readonly flat: boolean;
  readonly receiver: MacroNode;
  readonly variable: string;
  readonly body: MacroNode;
  scope?: OverlayContext;
  typeCheck(chk: MacroChecker, m: OptMacro, ctx: CheckContext): CelType;
  evaluate(ev: MacroEvaluator, m: OptMacro, ctx: unknown): unknown;
}

function name(m: OptMacro): string {
  return m.flat ? "optFlatMap" : "optMap";
}

function checkOpt(chk: MacroChecker, m: OptMacro, ctx: CheckContext): CelType {
  const receiver = chk.check(m.receiver, ctx);
  if (receiver.kind !== "optional" && receiver.kind !== "dyn") {
    throw chk.createError(
      "optional_expected",
      `${name(m)}() receiver must be optional, got '${receiver.name}'`,
      m.receiver,
    );
  }
  // An unbound value type (`{}.?key` is optional<V>) is dyn to the body.
  const value =
    receiver.valueType === undefined || receiver.valueType.kind === "param" ? chk.getType("dyn") : receiver.valueType;
  m.scope = ctx.forkWithVariable(m.variable, value);
  const body = chk.check(m.body, m.scope);
  if (!m.flat) return (chk.registry as unknown as { getOptionalType(t: CelType): CelType }).getOptionalType(body);
  if (body.kind !== "optional" && body.kind !== "dyn") {
    throw chk.createError(
      "optional_expected",
      `optFlatMap() expression must return an optional, got '${body.name}'`,
      m.body,
    );
  }
  return body.kind === "optional" ? body : chk.getType("optional");
}

function evalOpt(ev: MacroEvaluator, m: OptMacro, ctx: unknown): unknown {
  const receiver = ev.run(m.receiver, ctx);
  if (!(receiver instanceof Optional))
    throw new LibraryError("optional_expected", `${name(m)}() receiver must be optional`);
  if (!receiver.hasValue()) return receiver;
  if (m.scope === undefined) throw new LibraryError("internal", `${name(m)}: macro evaluated before type check`);
  const result = ev.run(m.body, m.scope.reuse(ctx).setIterValue(receiver.value(), ev));
  if (!m.flat) return Optional.of(result);
  if (!(result instanceof Optional))
    throw new LibraryError("optional_expected", "optFlatMap() expression must return an optional");
  return result;
}

function optMacro(flat: boolean) {
  return ({ args, receiver }: MacroCall): OptMacro => ({
    flat,
    receiver,
    variable: identifierOf(args[0], flat ? "optFlatMap" : "optMap"),
    body: args[1] as MacroNode,
    typeCheck: checkOpt,
    evaluate: evalOpt,
  });
}

function optionalsEqual(a: Optional, b: Optional): boolean {
  if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
  const [x, y] = [a.value(), b.value()];
  // Scalars compare by value; anything else falls back to identity, which is enough for the
  // `optional.of(x) == optional.none()` checks authors write.
  return x === y || (typeof x === typeof y && typeof x !== "object" && x == y);
}

/** Hidden name `optional.none()` calls are routed to (see ast-rewrites.ts). */
export const OPTIONAL_NONE_DYN = "kroNone";

/**
 * `type(optional.of(x))` is `optional_type` in cel-go. cel-js has no optional type value; its
 * Type class is not exported, so the constructor is taken from a type value it hands out.
 */
function registerOptionalType(env: CelEnvironment): void {
  const TypeValue = (env.evaluate("type(1)") as object).constructor as new (name: string) => object;
  const optionalType = new TypeValue("optional_type");
  env.registerFunction("type(optional): type", () => optionalType);
  env.registerConstant("optional_type", "type", optionalType);
}

export function registerOptionalsLibrary(env: CelEnvironment): void {
  registerOptionalType(env);
  env.registerFunction(`OptionalNamespace.${OPTIONAL_NONE_DYN}(): optional<dyn>`, () => Optional.none());
  env.registerFunction("OptionalNamespace.ofNonZeroValue(A): optional<A>", (_ns: unknown, v: unknown) =>
    isZeroValue(v) ? Optional.none() : Optional.of(v),
  );
  env.registerFunction("optional.optMap(ast, ast): optional<dyn>", optMacro(false));
  env.registerFunction("optional.optFlatMap(ast, ast): optional<dyn>", optMacro(true));
  env.registerOperator("optional == optional", optionalsEqual);
}
