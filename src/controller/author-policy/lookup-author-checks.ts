/**
 * The instance-author check of a chart's lookups (docs/design/authorization.md): `lookup` reads
 * with the controller's rights, so an instance author could otherwise read, into an object they
 * can read, what they may not `get` themselves. Each declared lookup (a literal apiVersion and
 * kind, graph/helm/helm-lookups.ts) becomes a read the author policy checks like an external
 * reference: `get` of one object (by name when the name is a literal), `list` for name "". The
 * namespace is the instance's (`.Release.Namespace`, or any computed one while the runtime confines
 * lookups to it), the literal one the template names, or — computed, with
 * kro.run/allow-cross-namespace — all namespaces (a read whose scope is only
 * known once rendered is checked at the widest one); a cluster-scoped kind is checked cluster-wide.
 */
import type { CompiledGraph, HelmLookupSite } from "../../graph/index.js";
import type { PolicyNode } from "./author-checks.js";

const RELEASE_NAMESPACE = /^\$?\.Release\.Namespace$/;
/** A namespace value author-checks.ts cannot translate: checked in all namespaces. */
const COMPUTED = "${lookup}";
const LITERAL = /^"((?:[^"\\]|\\.)+)"$|^`([^`]+)`$/;

function literal(argument: string | undefined): string | undefined {
  const match = argument === undefined ? null : LITERAL.exec(argument);
  if (match === null) return undefined;
  if (match[2] !== undefined) return match[2];
  try {
    return JSON.parse(`"${match[1] ?? ""}"`) as string;
  } catch {
    return undefined;
  }
}

/** The node ids a lookup serves: its template's manifests children, or every one for a helper. */
function readers(graph: CompiledGraph, site: HelmLookupSite): string[] {
  const manifests = graph.nodes.filter((n) => n.templateSource?.manifests !== undefined);
  const own = manifests.filter((n) => n.templateSource?.manifests?.template === site.template);
  return (own.length > 0 ? own : manifests).map((n) => n.id);
}

/** One pseudo-node per lookup and reading child, shaped as the author policy reads external references. */
export function lookupAuthorNodes(graph: CompiledGraph, crossNamespace = false): PolicyNode[] {
  if (graph.dialect !== "template" || graph.helm === undefined) return [];
  const out: PolicyNode[] = [];
  for (const site of graph.helm.lookups ?? []) {
    const name = literal(site.name);
    // The instance's namespace, a literal, or — computed — unknown at admission: all namespaces,
    // once the RGD lets lookups leave the instance's namespace (the runtime confines them otherwise).
    const computed = site.namespace !== undefined && !RELEASE_NAMESPACE.test(site.namespace) && crossNamespace;
    const namespace = literal(site.namespace) ?? (computed ? COMPUTED : undefined);
    const empty = site.name !== undefined && /^(""|``)$/.test(site.name);
    // A name only known when rendered may be "" (a list) or a name (a get): check both.
    const types: PolicyNode["type"][] = empty
      ? ["externalCollection"]
      : name !== undefined
        ? ["external"]
        : ["external", "externalCollection"];
    const metadata = { ...(namespace === undefined ? {} : { namespace }), ...(name === undefined ? {} : { name }) };
    for (const id of readers(graph, site)) {
      for (const type of types)
        out.push({ id, type, apiVersion: site.apiVersion, kind: site.kind, template: { metadata } });
    }
  }
  return out;
}
