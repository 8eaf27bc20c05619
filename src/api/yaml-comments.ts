/**
 * Comments above the keys of a YAML map tree (a chart's values.yaml documents its values this
 * way), by key path. Lives here because only api parses YAML.
 */
import { isMap, isPair, isScalar, parseDocument } from "yaml";

/** Path (keys joined with "\u0000") → the comment lines right above that key, without `#`. */
export function yamlKeyComments(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: false });
  } catch {
    return out;
  }
  const clean = (comment: string | null | undefined): string | undefined => {
    if (comment === null || comment === undefined) return undefined;
    // Keep the paragraph closest to the key: an earlier blank-line-separated block describes something else.
    const paragraphs = comment.split(/\n\s*\n/);
    const last = (paragraphs[paragraphs.length - 1] ?? "").split("\n").map((l) => l.replace(/^ ?/, "").trimEnd());
    const textOut = last
      .filter((l) => !/^-- ?$/.test(l))
      .join("\n")
      .trim();
    // Commented-out example YAML (`# - name: foo`) is no description.
    const looksLikeYaml = last.every((l) => l.trim() === "" || /^\s*(- |[\w./"-]+:(\s|$))/.test(l));
    return textOut === "" || textOut.startsWith("@") || looksLikeYaml ? undefined : textOut.replace(/^-- /, "");
  };
  const walk = (node: unknown, path: string[], leading: string | null | undefined): void => {
    if (!isMap(node)) return;
    node.items.forEach((pair, i) => {
      if (!isPair(pair) || !isScalar(pair.key)) return;
      const key = String(pair.key.value);
      const here = [...path, key];
      const comment = clean(pair.key.commentBefore ?? (i === 0 ? (node.commentBefore ?? leading) : undefined));
      if (comment !== undefined) out.set(here.join("\u0000"), comment);
      walk(pair.value, here, undefined);
    });
  };
  walk(doc.contents, [], doc.commentBefore);
  return out;
}
