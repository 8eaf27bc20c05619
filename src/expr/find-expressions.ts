/**
 * Finds every string field holding `${…}` in a JSON/YAML value tree, with its path. Map keys are
 * never scanned (kro has no dynamic keys, KREP-020). Issues carry the path of their field.
 */
import { prefixIssues, type Issue, type IssuePath } from "../diag/index.js";
import { extractExpressions, type ExtractOptions, type Segment } from "./extract.js";

export interface FoundField {
  readonly path: IssuePath;
  /** The original string value. */
  readonly text: string;
  readonly standalone: boolean;
  readonly segments: readonly Segment[];
}

export interface FoundExpressions {
  readonly fields: readonly FoundField[];
  readonly issues: readonly Issue[];
}

export function findExpressions(value: unknown, options: ExtractOptions = {}, base: IssuePath = []): FoundExpressions {
  const fields: FoundField[] = [];
  const issues: Issue[] = [];
  const visit = (node: unknown, path: IssuePath): void => {
    if (typeof node === "string") {
      if (!node.includes("${")) return;
      const found = extractExpressions(node, options);
      issues.push(...prefixIssues(path, found.issues));
      if (found.segments.some((s) => s.kind === "expression")) {
        fields.push({ path, text: node, standalone: found.standalone, segments: found.segments });
      }
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => {
        visit(item, [...path, i]);
      });
    } else if (typeof node === "object" && node !== null) {
      for (const [key, child] of Object.entries(node)) visit(child, [...path, key]);
    }
  };
  visit(value, base);
  return { fields, issues };
}
