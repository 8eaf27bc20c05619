/**
 * The diagnostic model shared by every compile phase: an issue is a message at a path inside
 * the input document. Phases collect issues instead of throwing, so a user sees all of them.
 */
export const SEVERITIES = ["error", "warning"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** A path into a document: object keys and array indexes, outermost first. */
export type IssuePath = readonly (string | number)[];

export interface Issue {
  readonly severity: Severity;
  /** Stable machine-readable code, e.g. "schema.unknown-marker". */
  readonly code: string;
  readonly message: string;
  readonly path: IssuePath;
  /**
   * 1-based line/column inside the string value at `path`, for languages embedded in a YAML
   * string (Go templates): the loader adds it to where that string starts in the file.
   */
  readonly inner?: InnerPosition;
}

export interface InnerPosition {
  readonly line: number;
  readonly column: number;
}

export function error(code: string, path: IssuePath, message: string): Issue {
  return { severity: "error", code, path, message };
}

/** An error at a line/column inside the string at `path`. */
export function innerError(code: string, path: IssuePath, inner: InnerPosition, message: string): Issue {
  return { severity: "error", code, path, inner, message };
}

export function warning(code: string, path: IssuePath, message: string): Issue {
  return { severity: "warning", code, path, message };
}

export function hasErrors(issues: readonly Issue[]): boolean {
  return issues.some((i) => i.severity === "error");
}

/** `spec.resources[2].template.spec.replicas`; keys that are not identifiers are quoted. */
export function formatPath(path: IssuePath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export function formatIssue(issue: Issue): string {
  const where = issue.path.length === 0 ? "" : `${formatPath(issue.path)}: `;
  return `${issue.severity}: ${where}${issue.message}`;
}

/** Adds a prefix to the paths of issues found in a sub-document. */
export function prefixIssues(prefix: IssuePath, issues: readonly Issue[]): Issue[] {
  return issues.map((i) => ({ ...i, path: [...prefix, ...i.path] }));
}
