/**
 * Phase 4's forEach rules (docs/reference/kro-reference.md §5): every iterator must appear in an
 * identity field of the template — `metadata.name`, or `metadata.namespace` for namespaced kinds —
 * so the items of a collection get distinct identities (the target cluster counts as identity); and
 * an iterator's list may not read another iterator.
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import { referencedIdentifiers, type KroCelEnvironment } from "../../expr/index.js";
import { ANNOTATIONS } from "../../api/index.js";
import type { DraftNode } from "./compile-resource.js";

function identifiersIn(env: KroCelEnvironment, texts: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const text of texts) {
    try {
      for (const name of referencedIdentifiers(env, text)) names.add(name);
    } catch {
      // unparsable expressions are reported by the type-check phase
    }
  }
  return names;
}

/**
 * Expression sources of the template's identity fields. The target cluster (`cluster:`, carried
 * as the reserved annotation) is one too: `default/app` in eu-west and in us-east are two children.
 */
function identityExpressions(node: DraftNode): string[] {
  // A kind of unknown scope may be namespaced, so its namespace counts as identity too.
  const identity = node.namespaced === false ? ["name"] : ["name", "namespace"];
  const isIdentity = (path: readonly (string | number)[]): boolean =>
    (path.length === 2 && path[0] === "metadata" && identity.includes(String(path[1]))) ||
    (path.length === 3 && path[0] === "metadata" && path[1] === "annotations" && path[2] === ANNOTATIONS.cluster);
  return node.fields
    .filter((f) => isIdentity(f.path))
    .flatMap((f) => f.segments.flatMap((s) => (s.kind === "expression" ? [s.source] : [])));
}

export function checkForEach(env: KroCelEnvironment, node: DraftNode): Issue[] {
  if (node.forEach.length === 0) return [];
  const issues: Issue[] = [];
  const iterators = node.forEach.map((d) => d.name);
  for (const dimension of node.forEach) {
    const others = [...identifiersIn(env, [dimension.expression])].filter(
      (name) => name !== dimension.name && iterators.includes(name),
    );
    for (const other of others) {
      issues.push(
        error(
          "graph.foreach-iterator-reference",
          dimension.path,
          `forEach iterator "${dimension.name}" cannot reference other iterators (it reads "${other}")`,
        ),
      );
    }
  }
  const used = identifiersIn(env, identityExpressions(node));
  const missing = iterators.filter((name) => !used.has(name));
  if (missing.length > 0) {
    const metadata = (node.template as { metadata?: Record<string, unknown> }).metadata;
    const at: IssuePath = [...node.path, "template", "metadata", ...(metadata?.name === undefined ? [] : ["name"])];
    // kro's wording, list formatted as Go prints a []string
    issues.push(
      error(
        "graph.foreach-identity",
        at,
        `resource "${node.id}": all forEach dimensions must be used to produce a unique resource identity, missing: [${missing.join(" ")}]`,
      ),
    );
  }
  return issues;
}
