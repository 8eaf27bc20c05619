/**
 * Guards that keep compileRgd total: an RGD nested deeper than any real one is refused with one
 * issue before the recursive phases run (an RGD from the API server can nest far deeper than our
 * YAML loader allows), and a phase that still runs out of stack becomes an issue, not a throw.
 */
import { error, type Issue, type IssuePath } from "../diag/index.js";

/** Levels of nested objects/arrays an RGD may have (the SimpleSchema spec itself allows 64). */
export const MAX_RGD_DEPTH = 200;

export const INPUT_LIMIT_CODES = { tooDeep: "rgd.too-deep", internal: "rgd.compile-failed" } as const;

/** Path of the first value nested deeper than `maxDepth` (iterative: safe on any depth). */
export function tooDeepPath(root: unknown, maxDepth: number = MAX_RGD_DEPTH): IssuePath | undefined {
  const stack: [unknown, IssuePath][] = [[root, []]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, IssuePath];
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= maxDepth) return path;
    if (Array.isArray(value))
      value.forEach((item: unknown, i) => {
        stack.push([item, [...path, i]]);
      });
    else for (const [key, item] of Object.entries(value)) stack.push([item, [...path, key]]);
  }
  return undefined;
}

export function tooDeepIssue(path: IssuePath): Issue {
  return error(
    INPUT_LIMIT_CODES.tooDeep,
    path,
    `nests deeper than ${MAX_RGD_DEPTH} levels; no ResourceGraphDefinition needs that many`,
  );
}

/** A compile phase that overflowed the stack (or otherwise threw): one issue instead of a crash. */
export function compileFailure(e: unknown): Issue {
  const message = e instanceof Error ? e.message : String(e);
  const reason =
    e instanceof RangeError ? "the definition nests too deeply to compile" : `internal compiler error: ${message}`;
  return error(INPUT_LIMIT_CODES.internal, [], reason);
}
