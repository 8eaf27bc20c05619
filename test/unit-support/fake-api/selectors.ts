/**
 * Label and field selectors as the API server reads them from a query string: `a=b`, `a==b`,
 * `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x,y)`, comma-separated (commas inside parentheses
 * belong to the set). Field selectors: `metadata.name` and `metadata.namespace` only.
 */
import { selectorTerms, type KubeObject } from "../../../src/kube/index.js";

type Term = (labels: Readonly<Record<string, string>>) => boolean;

function parseTerm(term: string): Term {
  const set = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(term);
  if (set !== null) {
    const [, key = "", op, values = ""] = set;
    const allowed = new Set(values.split(",").map((v) => v.trim()));
    return op === "in"
      ? (l) => l[key] !== undefined && allowed.has(l[key])
      : (l) => l[key] === undefined || !allowed.has(l[key]);
  }
  const notEqual = /^([^!=]+)!=(.*)$/.exec(term);
  if (notEqual !== null) return (l) => l[(notEqual[1] ?? "").trim()] !== (notEqual[2] ?? "").trim();
  const equal = /^([^!=]+)==?(.*)$/.exec(term);
  if (equal !== null) return (l) => l[(equal[1] ?? "").trim()] === (equal[2] ?? "").trim();
  if (term.startsWith("!")) return (l) => l[term.slice(1).trim()] === undefined;
  return (l) => l[term] !== undefined;
}

export function labelSelector(selector: string | null): (object: KubeObject) => boolean {
  if (selector === null || selector === "") return () => true;
  const terms = selectorTerms(selector).map(parseTerm);
  return (object) => terms.every((t) => t(object.metadata?.labels ?? {}));
}

export function fieldSelector(selector: string | null): (object: KubeObject) => boolean {
  if (selector === null || selector === "") return () => true;
  const fields: Record<string, (o: KubeObject) => string | undefined> = {
    "metadata.name": (o) => o.metadata?.name,
    "metadata.namespace": (o) => o.metadata?.namespace,
  };
  const terms = selectorTerms(selector).map((term) => {
    const negate = term.includes("!=");
    const [field = "", value = ""] = term.split(/!=|==?/);
    const read = fields[field.trim()];
    if (read === undefined) throw new Error(`fake API: field selector ${field} is not supported`);
    return (o: KubeObject) => (read(o) === value.trim()) !== negate;
  });
  return (object) => terms.every((t) => t(object));
}
