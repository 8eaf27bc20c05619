/**
 * A collection's `propagateWhen` (KREP-006), read into the rules the runtime's gate evaluates.
 * kro-ts supports a fixed set of forms with kro's meaning rather than arbitrary CEL over items'
 * `ready()`/`updated()`: an expression outside the set is refused here, with its path, so an RGD
 * never silently rolls out faster (or slower) than its author wrote.
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import type { PropagationRule } from "../compiled-graph.js";

type SourceExpression = { readonly text: string; readonly path: IssuePath };

const NAME = "([A-Za-z_][A-Za-z0-9_]*)";
const LINEAR = new RegExp(`^linearlyUpdated\\(${NAME},${NAME},(-?\\d+)\\)$`);
const EXPONENTIAL = new RegExp(`^exponentiallyUpdated\\(${NAME},${NAME}\\)$`);
const UPDATED_READY = [
  new RegExp(`^${NAME}\\.all\\(${NAME},!\\2\\.updated\\(\\)\\|\\|\\2\\.ready\\(\\)\\)$`),
  new RegExp(`^${NAME}\\.all\\(${NAME},\\2\\.ready\\(\\)\\|\\|!\\2\\.updated\\(\\)\\)$`),
];

export const SUPPORTED_PROPAGATE_WHEN =
  "linearlyUpdated(<iterator>, <id>, <batch>), exponentiallyUpdated(<iterator>, <id>), <id>.all(x, !x.updated() || x.ready())";

export interface PropagateWhenNode {
  readonly id: string;
  readonly path: IssuePath;
  readonly iterators: readonly string[];
}

/** The rules of `entries` (standalone expressions, already extracted), or the issues that refuse them. */
export function propagationRules(
  node: PropagateWhenNode,
  entries: readonly SourceExpression[],
): { rules: PropagationRule[]; issues: Issue[] } {
  const issues: Issue[] = [];
  if (entries.length === 0) return { rules: [], issues };
  if (node.iterators.length === 0) {
    issues.push(
      error(
        "graph.propagate-when-scope",
        [...node.path, "propagateWhen"],
        `resource "${node.id}": propagateWhen is supported on forEach collections only`,
      ),
    );
    return { rules: [], issues };
  }
  const rules: PropagationRule[] = [];
  const fail = (at: IssuePath, why: string) =>
    issues.push(error("graph.propagate-when", at, `resource "${node.id}": propagateWhen ${why}`));
  const collection = (at: IssuePath, id: string): boolean => {
    if (id === node.id) return true;
    fail(at, `must name its own collection "${node.id}", not "${id}"`);
    return false;
  };
  const iterator = (at: IssuePath, name: string): boolean => {
    if (node.iterators.includes(name)) return true;
    fail(at, `must name one of its forEach iterators (${node.iterators.join(", ")}), not "${name}"`);
    return false;
  };
  for (const entry of entries) {
    const text = entry.text.trim();
    const compact = text.replace(/\s+/g, "");
    const linear = LINEAR.exec(compact);
    if (linear) {
      const batch = Number(linear[3]);
      const ok = iterator(entry.path, linear[1] as string) && collection(entry.path, linear[2] as string);
      if (ok && (!Number.isSafeInteger(batch) || batch < 1))
        fail(entry.path, `batch must be at least 1, got ${linear[3]}`);
      else if (ok) rules.push({ kind: "linear", batch, text });
      continue;
    }
    const exponential = EXPONENTIAL.exec(compact);
    if (exponential) {
      if (iterator(entry.path, exponential[1] as string) && collection(entry.path, exponential[2] as string))
        rules.push({ kind: "exponential", text });
      continue;
    }
    const all = UPDATED_READY.map((pattern) => pattern.exec(compact)).find((m) => m !== null);
    if (all) {
      if (collection(entry.path, all[1] as string)) rules.push({ kind: "updatedReady", text });
      continue;
    }
    fail(entry.path, `"${text}" is not a supported form; kro-ts supports ${SUPPORTED_PROPAGATE_WHEN}`);
  }
  return { rules, issues };
}
