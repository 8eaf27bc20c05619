/**
 * Running one Go template of a child and turning the outcome into the runtime's terms: a
 * TemplateError becomes an error that names the child and the 1-based line/column inside the
 * template (Go's own message, kept verbatim, shows a 0-based column).
 */
import {
  isTemplateError,
  renderTemplate,
  type Entropy,
  type RenderDeadline,
  type Template,
} from "../../template/index.js";
import type { Outcome } from "../dialect.js";
import type { TemplateData } from "./data.js";

/** A template's outcome; `limit` marks a work budget or the deadline (never "not ready yet"). */
export type RunOutcome = Outcome<string> & { readonly limit?: boolean };

/**
 * `entropy`: the instance's seeded source (entropy.ts); the template draws from its own fork.
 * `deadline`: the pass's (the render stops at it, as CEL does).
 */
export function runTemplate(
  owner: string,
  what: string,
  template: Template,
  data: TemplateData,
  entropy?: Entropy,
  deadline?: RenderDeadline,
): RunOutcome {
  try {
    return {
      ok: true,
      value: renderTemplate(template, data, {
        ...(entropy === undefined ? {} : { entropy: entropy.fork(template.name) }),
        ...(deadline === undefined ? {} : { deadline }),
      }),
    };
  } catch (e) {
    if (!isTemplateError(e)) throw e;
    return {
      ok: false,
      error: `${owner}: ${what} failed at line ${e.line}, column ${e.column}: ${e.message}`,
      ...(e.kind === "budget" ? { limit: true } : {}),
    };
  }
}

/** The dialect's truth rule for condition and readyWhen output. */
export function templateTruth(output: string): boolean | undefined {
  const text = output.trim();
  if (text.toLowerCase() === "true") return true;
  if (text === "" || text.toLowerCase() === "false" || text === "<no value>") return false;
  return undefined;
}
