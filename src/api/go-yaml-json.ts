/**
 * The JSON step of sigs.k8s.io/yaml (`convertToJSONableObject`, then `json.Marshal`) applied to a
 * parsed document before it becomes a JS value: map keys become the strings Go makes of them
 * (an int's exact digits, a float's float32 `%g` form, `true`/`false`), keys Go refuses (null,
 * unsigned beyond int64, collections) and floats JSON cannot carry (`.inf`, `.nan`) are problems.
 * kubectl fails on those files too, so failing here is reading them as Kubernetes does.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Node, type Scalar } from "yaml";
import { goFloatKey, resolveGoScalar } from "./go-yaml-scalars.js";

export interface JsonProblem {
  readonly message: string;
  readonly offset: number | undefined;
}

const TAG = "tag:yaml.org,2002:";

/** What Go's decoder made of a scalar node: its kind (and exact digits for integers). */
function goKind(node: Scalar): ReturnType<typeof resolveGoScalar> | undefined {
  const source = typeof node.source === "string" ? node.source : undefined;
  if (source === undefined) return undefined;
  if (node.tag === `${TAG}float` && typeof node.value === "number") return { kind: "float", value: node.value };
  if (node.tag === undefined ? node.type === "PLAIN" : node.tag === `${TAG}int`) return resolveGoScalar(source);
  return undefined;
}

/** Rewrites keys in place to Go's strings and returns what Go would refuse. */
export function applyGoJsonRules(root: unknown): JsonProblem[] {
  const problems: JsonProblem[] = [];
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object" || seen.has(node) || isAlias(node)) return;
    seen.add(node);
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        if (isScalar(key)) rewriteKey(key, problems);
        else if (key !== null && !isAlias(key))
          problems.push({
            message: "a map key must be a scalar: JSON object keys are strings",
            offset: key.range?.[0],
          });
        visit(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item);
    } else if (isScalar(node) && typeof node.value === "number" && !Number.isFinite(node.value)) {
      problems.push({
        message: `${String(node.source ?? node.value)} is not a number JSON can carry (kubectl refuses it too); quote it for a string`,
        offset: node.range?.[0],
      });
    }
  };
  visit(root);
  return problems;
}

function rewriteKey(key: Scalar, problems: JsonProblem[]): void {
  if (key.value === null) {
    problems.push({
      message: "a map key cannot be null (JSON object keys are strings); quote it for a string",
      offset: key.range?.[0],
    });
    return;
  }
  if (typeof key.value !== "number") return;
  const go = goKind(key);
  if (go?.kind === "float") {
    key.value = goFloatKey(key.value);
  } else if (go?.kind === "uint") {
    problems.push({
      message: `map key ${String(key.source)} is beyond int64: sigs.k8s.io/yaml refuses such a key; quote it for a string`,
      offset: key.range?.[0],
    });
  } else if (go?.exact !== undefined) {
    key.value = go.exact;
  }
}
