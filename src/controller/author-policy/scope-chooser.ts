/**
 * Who chooses where a child lands: the RGD, or the instance's data. The RGD is the grant — a
 * platform team publishes an API so that developers get what is behind it without rights of their
 * own there — so a child whose scope the RGD fixes (the instance's own namespace, a literal
 * namespace, a cluster-scoped object with a literal name) needs no right of the instance author.
 * Wherever instance data picks the scope (a namespace or a cluster-scoped name computed from the
 * spec, an iterator, a Go template), the instance author must hold the right there.
 *
 * Data flow is followed through other resources: `${deployment.metadata.namespace}` is the
 * instance's own namespace when `deployment` lands there (kro's webapp example reads a Service's
 * namespace that way). Anything this cannot prove is "instance": it errs on the refusing side. Pure.
 */

export type ScopeChooser = "rgd" | "instance";

export interface ScopedNode {
  readonly id: string;
  readonly template: unknown;
  readonly templateSource?: unknown;
}

/** `${id.metadata.namespace}` (or `.name`), optionally with `?` selection: the field of another resource. */
const PEER_FIELD = /^\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*\??\s*metadata\s*\.\s*\??\s*(namespace|name)\s*\}$/;
const OWN_NAMESPACE = /^\$\{\s*schema\s*\.\s*metadata\s*\.\s*namespace\s*\}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const NAMESPACE_KEY = /\bnamespace\s*:(.*)$/gm;
const RELEASE_NAMESPACE = /^\s*(["']?)\{\{-?\s*\$?\.Release\.Namespace\s*-?\}\}\1\s*$/;

function writesOnlyReleaseNamespace(template: string): boolean {
  for (const [, value] of template.matchAll(NAMESPACE_KEY)) if (!RELEASE_NAMESPACE.test(value ?? "")) return false;
  return true;
}

const metadataOf = (node: ScopedNode): Record<string, unknown> =>
  isRecord(node.template) && isRecord(node.template.metadata) ? node.template.metadata : {};

/**
 * Who chooses a node's `metadata.namespace` (field "namespace") or, for a cluster-scoped kind,
 * its `metadata.name` (field "name"). `nodes` resolves the ids a value reads.
 */
export function scopeChooser(
  node: ScopedNode,
  field: "namespace" | "name",
  nodes: ReadonlyMap<string, ScopedNode>,
  seen: readonly string[] = [],
): ScopeChooser {
  // A Go-template child is known only once rendered: it lands in the instance's namespace when every
  // namespace it writes is the release's (`.Release.Namespace`, the instance's).
  if (node.templateSource !== undefined)
    return field === "namespace" && typeof node.template === "string" && writesOnlyReleaseNamespace(node.template)
      ? "rgd"
      : "instance";
  const value = metadataOf(node)[field];
  if (value === undefined || value === null || value === "") return field === "namespace" ? "rgd" : "instance";
  if (typeof value !== "string") return "instance";
  if (!value.includes("${")) return "rgd";
  if (field === "namespace" && OWN_NAMESPACE.test(value)) return "rgd";
  const peer = PEER_FIELD.exec(value);
  const peerId = peer?.[1];
  const peerNode = peerId === undefined ? undefined : nodes.get(peerId);
  if (peerNode === undefined || peer?.[2] !== field || seen.includes(node.id)) return "instance";
  return scopeChooser(peerNode, field, nodes, [...seen, node.id]);
}
