/**
 * The gate every write to a child passes, immediately before the request (child-port.ts calls it;
 * nothing else sends a child write — test/tooling/child-write-gate.test.ts proves it). It judges
 * the concrete request, not a prediction made earlier in the pass:
 *
 * - **placement**: a child of a resource with a target cluster goes only to a cluster the RGD's
 *   allow list names (`clusters:`), in whichever apply round it appears; an empty or missing
 *   target is an error, never the controller's own cluster; a resource without a target never
 *   leaves the controller's cluster;
 * - **ownership**: an apply is guarded (the recorded or adopted UID, or create-only), a delete
 *   carries the recorded UID, a release patch a resourceVersion of the object whose UID was
 *   checked — so no write can land on an object we did not create or were not asked to adopt;
 * - **retention**: a delete is judged on the live object it was decided on — never one marked
 *   `helm.sh/resource-policy: keep`, never an adopted one unless the instance adopted it for
 *   deletion (those are released instead, removal-plan.ts);
 *
 * - **authority**: wherever instance data chooses a child's scope (the RGD's author checks name
 *   the node), the instance's recorded requester (`kro.run/requested-by`, admitted only as the
 *   writer's own name) must hold the right on the concrete object — a SubjectAccessReview asked
 *   through `ask`, so a right revoked after admission stops the next write. Without a record
 *   (written before the requester webhook, or with it unreachable) admission's check stands
 *   alone. Every child body carries the instance's record, never one its template wrote, so a
 *   nested instance's requester is the outer one.
 * - **the RGD is the grant, within its author's rights**: every write and read in the controller's
 *   cluster must also be one the RGD's recorded author (`kro.run/authored-by`, admitted only as
 *   the writer's own name) may make there — so an RGD cannot lend anyone, its author included,
 *   the controller's rights. An RGD without a record is bounded by the controller's rights, as in kro.
 *
 * See docs/design/authorization.md. Pure, but for the injected `ask`.
 */
import { ANNOTATIONS, labelValue } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import {
  identityKey,
  type CollectionQuery,
  type ExternalRequest,
  type KubeJson,
  type ObjectIdentity,
} from "../../runtime/index.js";
import type { GateRight } from "../context/index.js";
import type { AdoptionPolicy } from "./apply-outcome.js";
import { CREATE_ONLY_RESOURCE_VERSION, nodeIdOf } from "./apply-plan.js";

/** Who last wrote the instance, as its admitted record says. */
export interface Requester {
  readonly user: string;
  readonly groups: readonly string[];
}

export interface AccessQuestion {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** A SubjectAccessReview: true, false, or why it could not be asked. */
export type AskAccess = (requester: Requester, question: AccessQuestion) => Promise<boolean | string>;

/** The API resource that serves a kind, as discovery says; a string says why it could not be found. */
export type ResolveKind = (
  apiVersion: string,
  kind: string,
) => Promise<{ readonly group: string; readonly resource: string; readonly namespaced: boolean } | string>;

/** What the gate asks with: SubjectAccessReviews, and discovery to name a kind's resource. */
export interface GatePorts {
  readonly ask: AskAccess;
  readonly resolve: ResolveKind;
}

/** What the gate judges one instance's writes by. */
export interface GateRules {
  /**
   * Node id label → the clusters the RGD allows it in (undefined: no target cluster), the rights
   * its writes need of the requester, and whether it is another RGD's instance (it carries the record).
   */
  readonly nodes: ReadonlyMap<
    string,
    {
      readonly clusters?: readonly string[] | undefined;
      readonly rights?: readonly GateRight[];
      readonly nested?: boolean;
    }
  >;
  readonly requester?: Requester | undefined;
  /** Who the RGD records as its author: every write and read in this cluster is bounded by their rights. */
  readonly author?: Requester | undefined;
  readonly adoption?: AdoptionPolicy;
}

export interface GateInputs {
  /** Node id → the rights the RGD's author checks name for it (none: the RGD grants its scope). */
  readonly rights?: ReadonlyMap<string, readonly GateRight[]>;
  readonly requester?: Requester | undefined;
  readonly author?: Requester | undefined;
  readonly adoption?: AdoptionPolicy;
  /** Whether a kind is another RGD's instance kind. */
  readonly nested?: (apiVersion: string, kind: string) => boolean;
}

/** The gate's rules for a graph, keyed as a child's node-id label carries the id (shortened when long). */
export function gateRulesOf(graph: Pick<CompiledGraph, "nodes">, inputs: GateInputs = {}): GateRules {
  return {
    nodes: new Map(
      graph.nodes.map((n) => [
        labelValue(n.id),
        {
          clusters: n.clusters,
          rights: inputs.rights?.get(n.id) ?? [],
          nested: n.type === "resource" && (inputs.nested?.(n.apiVersion, n.kind) ?? false),
        },
      ]),
    ),
    requester: inputs.requester,
    author: inputs.author,
    adoption: inputs.adoption ?? "never",
  };
}

/** The requester an instance's annotations record, if any. */
export function requesterOf(annotations: Readonly<Record<string, string>> | undefined): Requester | undefined {
  const user = annotations?.[ANNOTATIONS.requestedBy];
  if (user === undefined || user === "") return undefined;
  const groups = annotations?.[ANNOTATIONS.requestedGroups] ?? "";
  return { user, groups: groups === "" ? [] : groups.split(",") };
}

/** A write the gate refused: no request was sent. */
export class WriteRefused extends Error {
  override readonly name = "WriteRefused";
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const metadataOf = (body: KubeJson): Record<string, unknown> => (isRecord(body.metadata) ? body.metadata : {});

/** Where an apply of `body` may go: the cluster name, undefined for the controller's own; throws WriteRefused. */
export function judgeApply(rules: GateRules, body: KubeJson): string | undefined {
  const metadata = metadataOf(body);
  const nodeId = nodeIdOf(body);
  const node = rules.nodes.get(nodeId);
  if (node === undefined) throw new WriteRefused(`resource "${nodeId}" is not part of the graph this instance runs`);
  if (typeof metadata.uid !== "string" && metadata.resourceVersion !== CREATE_ONLY_RESOURCE_VERSION)
    throw new WriteRefused(`an apply of resource "${nodeId}" carries no ownership guard (UID or create-only)`);
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const target = annotations[ANNOTATIONS.cluster];
  if (node.clusters === undefined) {
    if (target !== undefined)
      throw new WriteRefused(
        `resource "${nodeId}" has no target cluster, yet its object names cluster ${JSON.stringify(target)}`,
      );
    return undefined;
  }
  if (typeof target !== "string" || target === "")
    throw new WriteRefused(
      `resource "${nodeId}": its target cluster evaluated to ${target === undefined ? "nothing" : JSON.stringify(target)}; an empty target is an error, not this cluster`,
    );
  if (!node.clusters.includes(target))
    throw new WriteRefused(
      `cluster "${target}" is not allowed for resource "${nodeId}": the RGD allows ${node.clusters.map((c) => `"${c}"`).join(", ")}`,
    );
  return target;
}

/** A release patch must be preconditioned on the object it was computed from; throws WriteRefused. */
export function judgePatch(patch: KubeJson): void {
  const metadata = metadataOf(patch);
  if (typeof metadata.resourceVersion !== "string" && typeof metadata.uid !== "string")
    throw new WriteRefused("a patch of a child must carry the resourceVersion or UID it was computed from");
}

/** The rights an apply of a child of this node needs of the requester, given the instance's adoption choice. */
function rightsFor(rules: GateRules, nodeLabel: string): readonly GateRight[] {
  const adoption = rules.adoption ?? "never";
  return (rules.nodes.get(nodeLabel)?.rights ?? []).filter((right) => {
    if (right.adoption === "any") return adoption !== "never";
    if (right.adoption === "delete") return adoption === "adopt-and-delete";
    // Deleting what the instance created is always allowed; creating and changing it is what is
    // asked — and deleting, when the instance takes over objects in order to delete them.
    return right.verb !== "delete" || adoption === "adopt-and-delete";
  });
}

/** "patch configmaps "cfg" in namespace team-b": a question as a refusal names it. */
function phrase(question: AccessQuestion, withName: boolean): string {
  const resource = question.group === "" ? question.resource : `${question.resource}.${question.group}`;
  const name = withName && question.name !== undefined ? ` "${question.name}"` : "";
  const scope = question.namespace === undefined ? "cluster-wide" : `in namespace ${question.namespace}`;
  return `${question.verb} ${resource}${name} ${scope}`;
}

/**
 * Authority on the concrete object: each right the node needs, asked for the recorded requester
 * at the object's namespace and name. Throws WriteRefused naming the child, verb, scope and user.
 */
export async function judgeAuthority(rules: GateRules, body: KubeJson, ask: AskAccess): Promise<void> {
  const requester = rules.requester;
  if (requester === undefined) return;
  const metadata = metadataOf(body);
  const nodeId = nodeIdOf(body);
  const name = typeof metadata.name === "string" ? metadata.name : undefined;
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : undefined;
  for (const right of rightsFor(rules, nodeId)) {
    const question: AccessQuestion = {
      group: right.group,
      resource: right.resource,
      verb: right.verb,
      ...(right.clusterScoped || namespace === undefined ? {} : { namespace }),
      ...(right.verb === "create" || name === undefined ? {} : { name }),
    };
    const answer = await ask(requester, question);
    if (answer === true) continue;
    throw new WriteRefused(
      answer === false
        ? `resource "${nodeId}": ${requester.user}, who wrote the instance, may not ${phrase(question, true)}, where the instance's data placed it`
        : `resource "${nodeId}": cannot check whether ${requester.user} may ${phrase(question, false)}: ${answer}`,
    );
  }
}

/**
 * The RGD's author bounds what its instances cause: an apply to the controller's cluster is sent
 * only if the author may make it there — create for an object not there yet (create-only), patch
 * for one that is (its UID) — asked for the kind in the object's namespace. A child in another
 * cluster (`cluster`) is bounded instead by the credentials its owner registered and the RGD's
 * allow list. Throws WriteRefused naming the child, verb, scope and author.
 */
export async function judgeAuthorship(
  rules: GateRules,
  body: KubeJson,
  cluster: string | undefined,
  ports: GatePorts,
): Promise<void> {
  const author = rules.author;
  if (author === undefined || cluster !== undefined) return;
  const metadata = metadataOf(body);
  const verb = typeof metadata.uid === "string" ? "patch" : "create";
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : undefined;
  const refusal = await authorRefusal(
    author,
    {
      apiVersion: String(body.apiVersion),
      kind: String(body.kind),
      verb,
      ...(namespace === undefined ? {} : { namespace }),
    },
    ports,
  );
  if (refusal !== undefined) throw new WriteRefused(`resource "${nodeIdOf(body)}": ${refusal}`);
}

/** Why the RGD's author may not do this (undefined: they may). */
async function authorRefusal(
  author: Requester,
  request: { readonly apiVersion: string; readonly kind: string; readonly verb: string; readonly namespace?: string },
  ports: GatePorts,
): Promise<string | undefined> {
  const { apiVersion, kind, verb, namespace } = request;
  const resolved = await ports.resolve(apiVersion, kind);
  if (typeof resolved === "string")
    return `cannot check whether ${author.user}, who wrote the RGD, may ${verb} ${kind}: ${resolved}`;
  const question: AccessQuestion = {
    group: resolved.group,
    resource: resolved.resource,
    verb,
    ...(resolved.namespaced && namespace !== undefined ? { namespace } : {}),
  };
  const answer = await ports.ask(author, question);
  if (answer === true) return undefined;
  return answer === false
    ? `${author.user}, who wrote the RGD, may not ${phrase(question, false)}; an RGD grants only what its author may do`
    : `cannot check whether ${author.user}, who wrote the RGD, may ${phrase(question, false)}: ${answer}`;
}

/**
 * The body as it may be sent: no requester record a template wrote (instance data could forge
 * one), and on another RGD's instance the outer instance's record, so the inner instance's
 * writes are judged for the same person.
 */
export function withRequester(rules: GateRules, body: KubeJson): KubeJson {
  const metadata = metadataOf(body);
  const written: Record<string, unknown> = isRecord(metadata.annotations) ? metadata.annotations : {};
  const record = new Set<string>([ANNOTATIONS.requestedBy, ANNOTATIONS.requestedGroups]);
  const had = Object.keys(written).some((key) => record.has(key));
  const annotations = Object.fromEntries(Object.entries(written).filter(([key]) => !record.has(key)));
  const requester = rules.nodes.get(nodeIdOf(body))?.nested === true ? rules.requester : undefined;
  if (requester === undefined && !had) return body;
  if (requester !== undefined) {
    annotations[ANNOTATIONS.requestedBy] = requester.user;
    annotations[ANNOTATIONS.requestedGroups] = requester.groups.join(",");
  }
  return { ...body, metadata: { ...metadata, annotations } };
}

/** A read the gate refused: the evaluation must not see it (its key), and the instance says why. */
export interface ReadRefusal {
  readonly nodeId: string;
  readonly key: string;
  readonly message: string;
}

/** The key under which a refused read is hidden from the pass's lookup. */
export function readKey(request: ObjectIdentity | CollectionQuery): string {
  return "matchLabels" in request ? `query:${JSON.stringify(request)}` : identityKey(request);
}

/**
 * The read gate: an externalRef or chart lookup whose scope instance data chose (the RGD's author
 * checks give its node `get`/`list` rights) is read only if the recorded requester may read it
 * there — asked on the concrete object or collection, like a write.
 */
export async function judgeReads(
  rules: GateRules,
  externals: readonly ExternalRequest[],
  ports: GatePorts,
): Promise<ReadRefusal[]> {
  const refusals = await judgeAuthorReads(rules, externals, ports);
  const requester = rules.requester;
  if (requester === undefined) return refusals;
  const ask = ports.ask;
  const asked = new Set<string>();
  for (const { nodeId, request } of externals) {
    const collection = "matchLabels" in request;
    const verb = collection ? "list" : "get";
    const rights = (rules.nodes.get(labelValue(nodeId))?.rights ?? []).filter(
      (r) => r.verb === verb && r.adoption === undefined,
    );
    for (const right of rights) {
      const question: AccessQuestion = {
        group: right.group,
        resource: right.resource,
        verb,
        ...(right.clusterScoped || request.namespace === undefined ? {} : { namespace: request.namespace }),
        ...(collection ? {} : { name: request.name }),
      };
      const once = JSON.stringify([nodeId, question]);
      if (asked.has(once)) continue;
      asked.add(once);
      const answer = await ask(requester, question);
      if (answer === true) continue;
      const what = phrase(question, true);
      refusals.push({
        nodeId,
        key: readKey(request),
        message:
          answer === false
            ? `reading for "${nodeId}": ${requester.user}, who wrote the instance, may not ${what}, where the instance's data pointed it`
            : `reading for "${nodeId}": cannot check whether ${requester.user} may ${what}: ${answer}`,
      });
    }
  }
  return refusals;
}

/** Reads in the controller's cluster are bounded by the RGD author's rights, like its writes. */
async function judgeAuthorReads(
  rules: GateRules,
  externals: readonly ExternalRequest[],
  ports: GatePorts,
): Promise<ReadRefusal[]> {
  const author = rules.author;
  if (author === undefined) return [];
  const refusals: ReadRefusal[] = [];
  const answers = new Map<string, string | undefined>();
  for (const { nodeId, request } of externals) {
    const collection = "matchLabels" in request;
    if (!collection && request.cluster !== undefined) continue;
    const verb = collection ? "list" : "get";
    const once = JSON.stringify([request.apiVersion, request.kind, verb, request.namespace]);
    const refusal = answers.has(once) ? answers.get(once) : await authorRefusal(author, { ...request, verb }, ports);
    answers.set(once, refusal);
    if (refusal !== undefined)
      refusals.push({ nodeId, key: readKey(request), message: `reading for "${nodeId}": ${refusal}` });
  }
  return refusals;
}

/** Helm's retention mark: the object outlives its release (and here, its instance). */
export const HELM_RESOURCE_POLICY = "helm.sh/resource-policy";

/** Retention, on the live object a delete was decided on; throws WriteRefused. */
export function judgeDelete(
  child: { readonly uid: string; readonly ownership: "created" | "adopted"; readonly nodeId: string },
  live: KubeJson | undefined,
  adoption: AdoptionPolicy,
): void {
  const metadata = live === undefined ? undefined : metadataOf(live);
  if (metadata?.uid !== child.uid)
    throw new WriteRefused(`a delete for resource "${child.nodeId}" must be decided on the live object it removes`);
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const policy = annotations[HELM_RESOURCE_POLICY];
  if (typeof policy === "string" && policy.trim() === "keep")
    throw new WriteRefused(
      `resource "${child.nodeId}" is marked ${HELM_RESOURCE_POLICY}: keep; it is released, never deleted`,
    );
  if (child.ownership === "adopted" && adoption !== "adopt-and-delete")
    throw new WriteRefused(
      `resource "${child.nodeId}" was adopted, not adopted for deletion; it is released, never deleted`,
    );
}
