/**
 * Static type checking against declared variables whose types come from OpenAPI schemas (§4.5).
 * A TypedScope is built once per set of declarations (registering struct types is the expensive
 * part) and checks any number of expressions, returning the output type as CEL and as OpenAPI.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { error, type Issue, type IssuePath } from "../diag/index.js";
import { incompatibility, describeSchema } from "./assignable.js";
import { SchemaTypeRegistry, celTypeToSchema } from "./cel-types.js";
import { statusSchemaForCelType } from "./cel-type-schema.js";
import type { KroCelEnvironment } from "./environment.js";
import { didYouMean } from "./did-you-mean.js";
import { toExprError } from "./errors.js";
import type { OpenApiSchema } from "./openapi-schema.js";
import { invalidRegexLiterals } from "./regex-calls.js";
import { estimateCost } from "./static-cost.js";
import { parseCel } from "./parse.js";

/** Variable name → OpenAPI schema of its value (a collection is `{type: array, items}`). */
export type DeclaredVariables = Readonly<Record<string, OpenApiSchema>>;

export interface CheckOptions {
  /** Target field schema; the output must be assignable to it. */
  readonly expected?: OpenApiSchema;
  /** Path of the field holding the expression, used for issues. */
  readonly path?: IssuePath;
  /** Warn when a comprehension has no size bound (default true). */
  readonly estimateCost?: boolean;
}

export interface CheckResult {
  /** CEL type name, e.g. `int`, `list<string>`; undefined when checking failed. */
  readonly type: string | undefined;
  /** The output type as an OpenAPI schema (dyn → preserve-unknown-fields), for assignability checks. */
  readonly schema: OpenApiSchema | undefined;
  /** The schema kro gives a status field of this type (cel-type-schema.ts); undefined when checking failed. */
  readonly statusSchema?: OpenApiSchema;
  readonly issues: readonly Issue[];
}

export const CHECK_CODES = {
  type: "expr.type-error",
  mismatch: "expr.type-mismatch",
  parse: "expr.parse-error",
  regex: "expr.invalid-regex",
} as const;

export class TypedScope {
  readonly #env: Environment;
  readonly #types: SchemaTypeRegistry;
  readonly #variables: DeclaredVariables;
  readonly #declarationIssues: Issue[] = [];

  /** With a TypedScope as base, the new scope extends it: its variables and registered types carry over. */
  constructor(base: KroCelEnvironment | TypedScope, variables: DeclaredVariables) {
    if (base instanceof TypedScope) {
      this.#env = base.#env.clone();
      this.#types = base.#types.fork(this.#env);
      this.#variables = { ...base.#variables, ...variables };
      this.#declarationIssues.push(...base.#declarationIssues);
    } else {
      this.#env = base.typed.clone();
      this.#types = new SchemaTypeRegistry(this.#env);
      this.#variables = variables;
    }
    for (const [name, schema] of Object.entries(variables)) {
      try {
        this.#env.registerVariable(name, this.#types.typeOf(schema, name));
      } catch (e) {
        this.#declarationIssues.push(
          error(
            CHECK_CODES.type,
            [],
            `cannot declare variable ${JSON.stringify(name)}: ${e instanceof Error ? e.message : String(e)}`,
          ),
        );
      }
    }
  }

  /** This scope plus more variables (e.g. forEach iterators); much cheaper than a new scope. */
  with(variables: DeclaredVariables): TypedScope {
    return new TypedScope(this, variables);
  }

  /** A "did you mean" for an unknown variable or field the checker refused, or "". */
  private suggestion(failure: unknown): string {
    const { code, node } = (typeof failure === "object" && failure !== null ? failure : {}) as {
      code?: unknown;
      node?: unknown;
    };
    if (code === "unknown_variable") {
      const name = (node as CelNode | undefined)?.args;
      return typeof name === "string" ? didYouMean(name, Object.keys(this.#variables)) : "";
    }
    if (code !== "no_such_key") return "";
    const chain = selectionChain(node);
    if (chain === undefined || chain.length < 2) return "";
    const [root = "", ...fields] = chain;
    const key = fields.pop() ?? "";
    const parent = schemaAt(this.#variables[root], fields);
    return parent?.properties === undefined ? "" : didYouMean(key, Object.keys(parent.properties));
  }

  /** Registers the types of these schemas without declaring variables, so scopes derived with
   * `with()` declare variables of these schemas cheaply. */
  preregister(schemas: readonly OpenApiSchema[]): this {
    for (const schema of schemas) this.#types.typeOf(schema, "pre");
    return this;
  }

  check(expression: string, options: CheckOptions = {}): CheckResult {
    const path = options.path ?? [];
    const fail = (code: string, message: string): CheckResult => ({
      type: undefined,
      schema: undefined,
      issues: [...this.#declarationIssues, error(code, path, message)],
    });
    let parsed: ReturnType<Environment["parse"]>;
    try {
      parsed = parseCel(this.#env, expression);
    } catch (e) {
      return fail(
        CHECK_CODES.parse,
        `expression ${JSON.stringify(expression)}: ${toExprError(e, expression, "parse").message}`,
      );
    }
    const result = parsed.check();
    if (!result.valid || result.type === undefined) {
      const reason = toExprError(result.error, expression, "check").message;
      return fail(
        CHECK_CODES.type,
        `expression ${JSON.stringify(expression)}: ${reason}${this.suggestion(result.error)}`,
      );
    }
    const schema = celTypeToSchema(result.type, this.#types);
    const issues: Issue[] = [...this.#declarationIssues];
    for (const problem of invalidRegexLiterals(parsed.ast))
      issues.push(error(CHECK_CODES.regex, path, `expression ${JSON.stringify(expression)}: ${problem}`));
    if (options.expected !== undefined) {
      const reason = incompatibility(schema, options.expected);
      if (reason !== undefined) {
        issues.push(
          error(
            CHECK_CODES.mismatch,
            path,
            `expression ${JSON.stringify(expression)} returns type "${describeSchema(schema)}" but expected "${describeSchema(options.expected)}" (${reason})`,
          ),
        );
      }
    }
    if (options.estimateCost !== false) {
      issues.push(...estimateCost(parsed.ast, expression, this.#variables).map((i) => ({ ...i, path })));
    }
    return { type: result.type, schema, statusSchema: statusSchemaForCelType(result.type, this.#types), issues };
  }
}

/** The AST of a selection `a.b.c` as far as the checker reports it (cel-js: `{op: ".", args: [left, key]}`). */
interface CelNode {
  readonly op?: unknown;
  readonly args?: unknown;
}

/** `["a", "b"]` for the node of `a.b`; undefined when it is not a plain chain of field selections. */
function selectionChain(node: unknown): string[] | undefined {
  const n = node as CelNode | undefined;
  if (n?.op === "id" && typeof n.args === "string") return [n.args];
  if ((n?.op === "." || n?.op === ".?") && Array.isArray(n.args) && typeof n.args[1] === "string") {
    const left = selectionChain(n.args[0]);
    return left === undefined ? undefined : [...left, n.args[1]];
  }
  return undefined;
}

/** The schema at `path` under `schema` (object properties only), if every step is declared. */
function schemaAt(schema: OpenApiSchema | undefined, path: readonly string[]): OpenApiSchema | undefined {
  let at = schema;
  for (const key of path) at = at?.properties?.[key];
  return at;
}

/** One-shot convenience; prefer a TypedScope when checking many expressions. */
export function checkExpression(
  env: KroCelEnvironment,
  expression: string,
  variables: DeclaredVariables,
  options: CheckOptions = {},
): CheckResult {
  return new TypedScope(env, variables).check(expression, options);
}
