/**
 * Keeps each RGD's instance-author policy (author-policy-objects.ts) on the cluster: applied
 * before its instances are served, stale chunks deleted, everything removed with the RGD (also
 * owned by it, so garbage collection removes it if the controller is gone). Failing to install
 * it fails closed: the RGD is not served, rather than served without the check.
 */
import { FIELD_MANAGERS, LABELS } from "../../api/index.js";
import {
  containmentPolicyOf,
  DEFAULT_CONTAINMENT,
  type CompiledGraph,
  type ContainmentPolicy,
} from "../../graph/index.js";
import { DiscoveryError, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import { authorPolicyObjects, checksOf, kindKey, type ResolvedChildKind } from "./author-policy-objects.js";
import { gateRightsOf } from "./gate-rights.js";
import { ensureRequesterWebhook } from "./requester-webhook.js";
import type { NestedGraph, PolicyNode } from "./author-checks.js";
import type { ControllerContext, GateRight } from "../context/index.js";
import { isJsonSubset } from "../context/index.js";
import { lookupAuthorNodes } from "./lookup-author-checks.js";
import type { InstanceKind } from "../context/index.js";

const VAP_API_VERSION = "admissionregistration.k8s.io/v1";
const KINDS = ["ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy"] as const;

/** The controller's own username (SelfSubjectReview, GA since Kubernetes 1.28); undefined when the server cannot say. */
export async function whoAmI(client: KubeClient): Promise<string | undefined> {
  try {
    const review = await client.create({
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
      metadata: { name: "kro-ts" },
    });
    const username = (review as { status?: { userInfo?: { username?: unknown } } }).status?.userInfo?.username;
    return typeof username === "string" && username !== "" ? username : undefined;
  } catch {
    return undefined;
  }
}

export type AuthorPolicyResult =
  { readonly ok: true; readonly policies: number } | { readonly ok: false; readonly message: string };

/** The RGD serving a child's kind, as the author policy composes it (author-checks.ts, nesting). */
function nestedGraphs(
  ctx: Pick<ControllerContext, "served">,
  self: string,
): (apiVersion: string, kind: string) => NestedGraph | undefined {
  return (apiVersion, kind) => {
    const group = apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
    const served = ctx.served.forKind(group, kind);
    if (served === undefined || served.rgdName === self || served.instance.apiVersion !== apiVersion) return undefined;
    return {
      rgdName: served.rgdName,
      nodes: [
        ...served.graph.nodes,
        ...lookupAuthorNodes(served.graph, served.containment?.allowCrossNamespace === true),
      ],
      policy: served.containment ?? DEFAULT_CONTAINMENT,
      namespaced: served.instance.namespaced,
    };
  };
}

/** Every node the policy reads, nested graphs' included (their kinds need resolving too). */
function allNodes(
  nodes: readonly PolicyNode[],
  nested: (apiVersion: string, kind: string) => NestedGraph | undefined,
  seen = new Set<string>(),
): PolicyNode[] {
  const out = [...nodes];
  for (const node of nodes) {
    const inner = nested(node.apiVersion, node.kind);
    if (inner === undefined || seen.has(inner.rgdName)) continue;
    seen.add(inner.rgdName);
    out.push(...allNodes(inner.nodes, nested, seen));
  }
  return out;
}

/**
 * The policy objects an RGD should have now (none when the author check is off, per RGD or
 * controller-wide), and the same checks as the write gate asks them of each node.
 * `policy`: the RGD's waivers as verified (delegation-verification.ts); by default as declared.
 */
export async function desiredAuthorPolicy(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
  instance: Pick<InstanceKind, "group" | "version" | "plural" | "namespaced">,
  policy: ContainmentPolicy = containmentPolicyOf(rgd),
): Promise<{ objects: Record<string, unknown>[]; rights: Map<string, GateRight[]> }> {
  const rgdName = rgd.metadata?.name ?? "";
  const rgdUid = rgd.metadata?.uid ?? "";
  if (ctx.options.authorCheck === "Disabled" || !policy.authorCheck) return { objects: [], rights: new Map() };
  const nested = nestedGraphs(ctx, rgdName);
  // Children, plus the chart's lookups as reads (lookup-author-checks.ts).
  const nodes = [...graph.nodes, ...lookupAuthorNodes(graph, policy.allowCrossNamespace)];
  const kinds = await resolveKinds(ctx, allNodes(nodes, nested));
  const controllerUser = await ctx.controllerUser();
  const input = {
    rgdName,
    rgdUid,
    nodes,
    kinds,
    policy,
    nested,
    instance: {
      group: instance.group,
      version: instance.version,
      plural: instance.plural,
      namespaced: instance.namespaced,
    },
    ...(controllerUser === undefined ? {} : { controllerUser }),
  };
  const checks = checksOf(input);
  return { objects: authorPolicyObjects(input, checks), rights: gateRightsOf(checks) };
}

/**
 * Whether the write gate asks the requester anything for this RGD's instances (instance data
 * chooses some child's or read's scope, or an instance may adopt): only then is the requester
 * webhook installed, to record who that is.
 */
function asksRequester(rights: ReadonlyMap<string, readonly GateRight[]>): boolean {
  return [...rights.values()].some((list) => list.length > 0);
}

export async function ensureAuthorPolicy(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
  instance: Pick<InstanceKind, "group" | "version" | "plural" | "namespaced">,
  policy?: ContainmentPolicy,
): Promise<AuthorPolicyResult> {
  const rgdName = rgd.metadata?.name ?? "";
  const rgdUid = rgd.metadata?.uid ?? "";
  try {
    const { objects, rights } = await desiredAuthorPolicy(ctx, rgd, graph, instance, policy);
    const wasNeeded = asksRequester(ctx.authorPolicies.rightsOf(rgdName));
    ctx.authorPolicies.grant(rgdName, rights);
    // Remembered before writing: the policy watch (policy-guard.ts) compares every event with it.
    ctx.authorPolicies.expect(rgdName, rgdUid, objects);
    // Policies before bindings: a binding to a policy that does not exist yet is ignored, not denying.
    const stored: Record<string, unknown>[] = [];
    for (const object of objects.filter((o) => o.kind === "ValidatingAdmissionPolicy"))
      stored.push(await applyExactly(ctx.client, object));
    for (const object of objects.filter((o) => o.kind !== "ValidatingAdmissionPolicy"))
      stored.push(await applyExactly(ctx.client, object));
    const keep = new Set(objects.map((o) => `${String(o.kind)}/${(o.metadata as { name: string }).name}`));
    await removeAuthorPolicy(ctx.client, rgdUid, keep);
    ctx.authorPolicies.applied(rgdName, stored);
    await ensureRequesterWebhook(ctx, rgd, instance, asksRequester(rights), wasNeeded);
    return { ok: true, policies: objects.length / 2 };
  } catch (error) {
    const message = `cannot install the instance-author policy (ValidatingAdmissionPolicy): ${error instanceof Error ? error.message : String(error)}`;
    ctx.authorPolicies.installFailed(rgdName, message);
    return { ok: false, message };
  }
}

/**
 * Server-side apply, then — when the result is not exactly ours (an edit left an entry in a
 * list that apply merges: an extra matchCondition, a "Warn" beside our "Deny", which the server
 * even refuses to combine) — a full replace, so no change made by someone else survives a restore.
 */
export async function applyExactly(
  client: KubeClient,
  object: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let applied: Record<string, unknown> | undefined;
  try {
    applied = await client.apply(object, { fieldManager: FIELD_MANAGERS.controller, force: true });
  } catch (error) {
    if ((error as { status?: number }).status !== 422) throw error;
  }
  if (applied !== undefined && isJsonSubset(object.spec, applied.spec)) return applied;
  const live = await client.get({
    apiVersion: VAP_API_VERSION,
    kind: String(object.kind),
    name: (object.metadata as { name: string }).name,
  });
  const metadata = {
    ...(object.metadata as Record<string, unknown>),
    resourceVersion: live.metadata?.resourceVersion ?? "",
  };
  return client.replace({ ...object, metadata }, { fieldManager: FIELD_MANAGERS.controller });
}

/** Deletes the RGD's policies and bindings, except those named in `keep` ("Kind/name"). */
export async function removeAuthorPolicy(
  client: KubeClient,
  rgdUid: string,
  keep: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (rgdUid === "") return;
  for (const kind of KINDS) {
    const existing = await client.list(VAP_API_VERSION, kind, { labelSelector: `${LABELS.rgdId}=${rgdUid}` });
    for (const item of existing.items) {
      const name = item.metadata?.name ?? "";
      if (keep.has(`${kind}/${name}`)) continue;
      try {
        await client.delete({ apiVersion: VAP_API_VERSION, kind, name });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
}

/**
 * Each node's kind as discovery serves it. A kind not served is left out: it is checked
 * cluster-wide under its plural guess (the strictest reading). A server that could not answer
 * (restarting, say) is no such verdict: the error fails the reconcile, and the policy in force
 * stays (AuthorPolicyState.installFailed).
 */
export async function resolveKinds(
  ctx: Pick<ControllerContext, "client">,
  nodes: readonly { apiVersion: string; kind: string }[],
): Promise<Map<string, ResolvedChildKind>> {
  const kinds = new Map<string, ResolvedChildKind>();
  for (const node of nodes) {
    const key = kindKey(node.apiVersion, node.kind);
    if (kinds.has(key)) continue;
    try {
      const info = await ctx.client.resourceFor(node.apiVersion, node.kind);
      kinds.set(key, { group: info.group, resource: info.resource, namespaced: info.namespaced });
    } catch (error) {
      if (!(error instanceof DiscoveryError)) throw error;
    }
  }
  return kinds;
}
