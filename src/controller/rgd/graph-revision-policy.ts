/**
 * The pure rules of GraphRevisions (kro v0.9 semantics): how a revision is named, when a new one
 * is due, which revisions belong to an RGD, which are served after a restart and which retention
 * deletes. No I/O: graph-revisions.ts reads and writes the objects.
 */
import {
  GRAPH_REVISION,
  KRO_API_VERSION,
  LABELS,
  RGD,
  type GraphRevision,
  type OwnerReference,
} from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";

/** kro's --rgd-max-graph-revisions default: the newest revisions kept per RGD (0 keeps all). */
export const DEFAULT_MAX_GRAPH_REVISIONS = 5;

/** Longest object name the API server accepts for a cluster-scoped custom resource. */
const NAME_LIMIT = 253;

/**
 * `<rgd>-r<revision, 5 digits>` (lexicographic order in kubectl up to 99999), as kro names them.
 * A name that would be too long is cut and gets the FNV-32a of the full RGD name, so two long
 * names sharing a prefix still differ; the cut never ends in a dot or dash (DNS-1123).
 */
export function graphRevisionName(rgdName: string, revision: number): string {
  const number = String(revision).padStart(5, "0");
  if (rgdName.length + number.length + 2 <= NAME_LIMIT) return `${rgdName}-r${number}`;
  const suffix = `-r${number}-${fnv1a(rgdName, 32)}`;
  const prefix = rgdName.slice(0, NAME_LIMIT - suffix.length).replace(/[.-]+$/, "");
  return `${prefix === "" ? "gr" : prefix}${suffix}`;
}

/** FNV-1a over the UTF-8 bytes, as lower-case hex of the big-endian digest (Go's hash/fnv). */
export function fnv1a(text: string, bits: 32 | 64): string {
  const size = BigInt(bits);
  const mask = (1n << size) - 1n;
  const prime = bits === 32 ? 0x01000193n : 0x100000001b3n;
  let hash = bits === 32 ? 0x811c9dc5n : 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * prime) & mask;
  return hash.toString(16).padStart(bits / 4, "0");
}

/** JSON with object keys sorted at every level: equal specs give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return value === undefined ? "null" : JSON.stringify(value);
}

/**
 * Identity of an RGD spec for "is a new revision due?": FNV-64a of its canonical JSON. Internal,
 * as in kro: always recomputed from the snapshot, the label copy is for kubectl only.
 * `spec.rollout` says how a graph reaches the instances, not what it is: a change there must not
 * issue a revision and start a rollout of the same graph, so it is left out (a spec without it
 * hashes exactly as before).
 */
export function graphSpecHash(spec: unknown): string {
  return fnv1a(canonicalJson(graphIdentity(spec ?? {})), 64);
}

function graphIdentity(spec: unknown): unknown {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec) || !("rollout" in spec)) return spec;
  const { rollout: _travel, ...graph } = spec as Record<string, unknown>;
  return graph;
}

/** A well-formed GraphRevision of this RGD name (anything else in the list is ignored). */
export function isRevisionOf(object: KubeObject, rgdName: string): object is KubeObject & GraphRevision {
  const spec = object.spec as { revision?: unknown; snapshot?: { name?: unknown; spec?: unknown } } | undefined;
  return (
    object.apiVersion === GRAPH_REVISION.apiVersion &&
    object.kind === GRAPH_REVISION.kind &&
    Number.isSafeInteger(spec?.revision) &&
    (spec?.revision as number) >= 1 &&
    spec?.snapshot?.name === rgdName &&
    typeof spec.snapshot.spec === "object" &&
    spec.snapshot.spec !== null
  );
}

export interface RevisionSet {
  /** Revisions not being deleted, newest first. */
  readonly live: readonly GraphRevision[];
  /** Highest revision number seen, terminating ones included (a name is never reused while it exists). */
  readonly highest: number;
}

export function revisionSet(items: readonly KubeObject[], rgdName: string): RevisionSet {
  const mine = items.filter((o) => isRevisionOf(o, rgdName)) as unknown as GraphRevision[];
  const live = mine
    .filter((r) => r.metadata.deletionTimestamp === undefined)
    .sort((a, b) => b.spec.revision - a.spec.revision);
  return { live, highest: mine.reduce((max, r) => Math.max(max, r.spec.revision), 0) };
}

/** The revision the current spec needs: the newest one when its snapshot is this spec, else a new number. */
export function revisionFor(
  set: RevisionSet,
  spec: unknown,
  lastIssued: number,
): { readonly revision: number; readonly issue: boolean } {
  const latest = set.live[0];
  if (latest !== undefined && graphSpecHash(latest.spec.snapshot.spec) === graphSpecHash(spec))
    return { revision: latest.spec.revision, issue: false };
  return { revision: Math.max(lastIssued, set.highest) + 1, issue: true };
}

/**
 * Retention: keep the newest `max` revisions and, whatever their age, the one being served (the
 * restart fallback must never lose the graph instances run on) and those instances are assigned,
 * run or are pinned to under a rollout. max <= 0 keeps everything.
 */
export function revisionsToPrune(
  live: readonly GraphRevision[],
  max: number,
  served: number | undefined,
  inUse: ReadonlySet<number> = new Set(),
): GraphRevision[] {
  if (max <= 0) return [];
  const newestFirst = [...live].sort((a, b) => b.spec.revision - a.spec.revision);
  return newestFirst.slice(max).filter((r) => r.spec.revision !== served && !inUse.has(r.spec.revision));
}

/** `status.lastIssuedRevision` of an RGD, 0 when absent or malformed. */
export function lastIssuedRevision(rgd: KubeObject): number {
  const value = (rgd.status as { lastIssuedRevision?: unknown } | undefined)?.lastIssuedRevision;
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : 0;
}

export function rgdOwnerReference(rgdName: string, rgdUid: string): OwnerReference {
  return { apiVersion: KRO_API_VERSION, kind: RGD.kind, name: rgdName, uid: rgdUid, controller: true };
}

/** Owned by this RGD object (not merely one of the same name that was deleted and recreated). */
export function isOwnedBy(revision: GraphRevision, rgdUid: string): boolean {
  return (revision.metadata.ownerReferences ?? []).some(
    (ref) => ref.uid === rgdUid && ref.kind === RGD.kind && ref.controller === true,
  );
}

/** The owner references with the RGD's replaced (a stale one from a recreated RGD) or added. */
export function withRgdOwner(refs: readonly OwnerReference[] | undefined, desired: OwnerReference): OwnerReference[] {
  const list = [...(refs ?? [])];
  const index = list.findIndex((ref) => ref.kind === RGD.kind && ref.apiVersion === KRO_API_VERSION);
  if (index === -1) return [...list, desired];
  list[index] = desired;
  return list;
}

/** The new revision object for an RGD spec that compiled and whose kind is ready. */
export function newGraphRevision(rgd: KubeObject, revision: number, kroVersion: string): GraphRevision {
  const name = rgd.metadata?.name ?? "";
  const spec = (rgd.spec ?? {}) as Record<string, unknown>;
  return {
    apiVersion: GRAPH_REVISION.apiVersion,
    kind: GRAPH_REVISION.kind,
    metadata: {
      name: graphRevisionName(name, revision),
      labels: {
        [LABELS.owned]: "true",
        [LABELS.kroVersion]: kroVersion,
        [LABELS.rgdName]: name,
        [LABELS.graphRevisionHash]: graphSpecHash(spec),
      },
      ownerReferences: [rgdOwnerReference(name, rgd.metadata?.uid ?? "")],
    },
    spec: { revision, snapshot: { name, generation: rgd.metadata?.generation ?? 0, spec } },
  };
}

/** The RGD a revision's snapshot stands for, to compile it: the live RGD's identity, the snapshot's spec. */
export function snapshotRgd(rgd: KubeObject, revision: GraphRevision): KubeObject {
  return {
    apiVersion: KRO_API_VERSION,
    kind: RGD.kind,
    metadata: { ...rgd.metadata, generation: revision.spec.snapshot.generation },
    spec: revision.spec.snapshot.spec,
  };
}
