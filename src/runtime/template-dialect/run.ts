/**
 * Running one Go template of a child and turning the outcome into the runtime's terms: a
 * TemplateError becomes an error that names the child and the 1-based line/column inside the
 * template (Go's own message, kept verbatim, shows a 0-based column).
 */
import { isTemplateError, renderTemplate, type Entropy, type Template } from "../../template/index.js";
import type { Outcome } from "../dialect.js";
import type { TemplateData } from "./data.js";

/** `entropy`: the instance's seeded source (entropy.ts); the template draws from its own fork. */
export function runTemplate(owner: string, what: string, template: Template, data: TemplateData, entropy?: Entropy): Outcome<string> {
  try {
    return { ok: true, value: renderTemplate(template, data, entropy === undefined ? {} : { entropy: entropy.fork(template.name) }) };
  } catch (e) {
    if (!isTemplateError(e)) throw e;
    return { ok: false, error: `${owner}: ${what} failed at line ${e.line}, column ${e.column}: ${e.message}` };
  }
}

/** The dialect's truth rule for condition and readyWhen output. */
export function templateTruth(output: string): boolean | undefined {
  const text = output.trim();
  if (text.toLowerCase() === "true") return true;
  if (text === "" || text.toLowerCase() === "false" || text === "<no value>") return false;
  return undefined;
}
