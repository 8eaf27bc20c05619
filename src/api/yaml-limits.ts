/**
 * Limits that keep hostile YAML from crashing or hanging the loader: a byte size, a nesting
 * depth, an alias budget, and strict UTF-8. Each breach becomes exactly one located issue.
 * The numbers are far above any real RGD (a few KiB, a few dozen levels) and below what the
 * parser and the compiler's recursion can take on Node's default stack.
 */
import { isAlias, isMap, isPair, isSeq, type Node } from "yaml";

export const YAML_LIMITS = {
  /** Bytes per file. The API server itself takes at most 3 MiB per request. */
  maxBytes: 16 * 1024 * 1024,
  /** Nested collections per document. */
  maxDepth: 200,
  /** Alias expansions per document (the `yaml` library's own guard against alias bombs). */
  maxAliasCount: 100,
} as const;

export const YAML_ISSUE_CODES = {
  syntax: "yaml.syntax",
  tooLarge: "yaml.too-large",
  tooDeep: "yaml.too-deep",
  aliases: "yaml.alias-limit",
  encoding: "yaml.encoding",
  notJson: "yaml.not-json",
} as const;

/** Offset of the first collection nested deeper than `maxDepth`, if any (iterative: no recursion). */
export function tooDeepAt(root: unknown, maxDepth: number): number | undefined {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (isAlias(node)) continue;
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > maxDepth) return (node as Node).range?.[0] ?? 0;
    for (const item of node.items) {
      if (isPair(item)) {
        stack.push([item.key, depth + 1], [item.value, depth + 1]);
      } else {
        stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}

/** Byte offset of the first invalid UTF-8 sequence, or undefined when the bytes are valid. */
export function invalidUtf8At(bytes: Uint8Array): number | undefined {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return undefined;
  } catch {
    // Walk once to find the offset (only on the failure path).
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i] ?? 0;
      const need =
        b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
      if (need < 0) return i;
      for (let k = 1; k <= need; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(i, i + need + 1));
      } catch {
        return i; // overlong or surrogate encodings
      }
      i += need + 1;
    }
    return bytes.length;
  }
}
