/**
 * The one error type the template engine throws. `message` is Go's wording exactly (what
 * `text/template` returns), so users who know Helm/Go recognise it; `line`/`column` (1-based,
 * within the template text) let the compiler map the error into the RGD YAML file.
 */
export type TemplateErrorKind = "parse" | "exec" | "budget";

export class TemplateError extends Error {
  override readonly name = "TemplateError";
  constructor(
    readonly kind: TemplateErrorKind,
    message: string,
    readonly line: number,
    readonly column: number,
    /** The template (file) name the line and column belong to, when a set of files is executed. */
    readonly file?: string,
  ) {
    super(message);
  }

  /**
   * The top-level template whose execution failed, when a set of files is executed: `file` may
   * be a helper it included; this is the file whose output the error cost.
   */
  readonly template?: string;
}

export function isTemplateError(e: unknown): e is TemplateError {
  return e instanceof TemplateError;
}

/** 1-based line and column (in UTF-16 units from the line start) of an offset in `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf("\n");
  let line = 1;
  for (let i = 0; i < before.length; i++) if (before.charCodeAt(i) === 10) line++;
  return { line, column: offset - lastNewline };
}
