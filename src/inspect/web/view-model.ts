/**
 * What the web view shows, as data: the snapshot the server read from the cluster (with every read
 * that the API server refused kept as "not permitted", never worked around) turned into the rows
 * a person sees — RGDs with state and conditions, their instances with state, conditions and the
 * tree `kro tree` computes, and recent Events. Pure: `now` is passed in.
 */
import { compareCodeUnits } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { humanAge } from "../human-age.js";
import { TREE_STATES, type InstanceTree, type TreeState } from "../tree-model.js";

/** One read from the cluster: its value, or why there is none (refused by RBAC, or another error). */
export type Read<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly notPermitted: boolean; readonly message: string };

export interface InstanceSnapshot {
  readonly object: KubeObject;
  readonly tree: Read<InstanceTree>;
}

export interface RgdSnapshot {
  readonly rgd: KubeObject;
  /** The kind it serves (undefined while its CRD is not served). */
  readonly kind?: { readonly apiVersion: string; readonly kind: string };
  /** Compiling the RGD here (for its picture and its instances' trees) failed with this. */
  readonly compileError?: string;
  /** Which namespaces the instance list covers: all, or the kubeconfig's when listing all was refused. */
  readonly scope: string;
  readonly instances: Read<readonly InstanceSnapshot[]>;
}

export interface ClusterSnapshot {
  readonly server: string;
  readonly rgds: Read<readonly RgdSnapshot[]>;
  readonly events: Read<readonly KubeObject[]>;
}

export interface ConditionView {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** A tree row's colour: the `kro tree` states, plus the instance's own row. */
export type RowState =
  "ready" | "waiting-readiness" | "waiting-dependency" | "excluded" | "error" | "deleting" | "not-ready";

export interface TreeRowView {
  readonly depth: number;
  readonly label: string;
  readonly state: RowState;
  readonly stateText: string;
  readonly reason: string;
}

export interface InstanceView {
  readonly key: string;
  readonly namespace?: string;
  readonly name: string;
  readonly state: RowState;
  readonly stateText: string;
  readonly age: string;
  readonly conditions: readonly ConditionView[];
  readonly tree: Read<readonly TreeRowView[]>;
}

export interface RgdView {
  readonly name: string;
  readonly kind: string;
  readonly state: RowState;
  readonly stateText: string;
  readonly age: string;
  readonly conditions: readonly ConditionView[];
  readonly compileError?: string;
  /** Where the page loads the graph picture from (absent when the RGD does not compile here). */
  readonly graphUrl?: string;
  readonly scope: string;
  readonly instances: Read<readonly InstanceView[]>;
}

export interface EventView {
  readonly age: string;
  readonly type: string;
  readonly reason: string;
  readonly object: string;
  readonly message: string;
}

export interface UiView {
  readonly server: string;
  readonly rgds: Read<readonly RgdView[]>;
  readonly events: Read<readonly EventView[]>;
}

/** Events shown, newest first. */
export const MAX_EVENTS = 30;

export const STATE_OF: Readonly<Record<TreeState, { state: RowState; text: string }>> = {
  [TREE_STATES.ready]: { state: "ready", text: "ready" },
  [TREE_STATES.waitingForReadiness]: { state: "waiting-readiness", text: "waiting for readiness" },
  [TREE_STATES.waitingOnDependency]: { state: "waiting-dependency", text: "waiting on dependency" },
  [TREE_STATES.excluded]: { state: "excluded", text: "excluded" },
  [TREE_STATES.error]: { state: "error", text: "error" },
  [TREE_STATES.deleting]: { state: "deleting", text: "deleting" },
  [TREE_STATES.unknown]: { state: "not-ready", text: "not readable here" },
};

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const age = (at: string | undefined, now: number): string =>
  at === undefined || Number.isNaN(Date.parse(at)) ? "-" : humanAge(now - Date.parse(at));

export function conditionsOf(object: KubeObject): ConditionView[] {
  const list = record(object.status).conditions;
  if (!Array.isArray(list)) return [];
  return list
    .map(record)
    .map((c) => ({ type: text(c.type), status: text(c.status), reason: text(c.reason), message: text(c.message) }));
}

/** The tree as indented rows, nested instances expanded under the node that made them. */
export function treeRows(tree: InstanceTree, depth = 0): TreeRowView[] {
  const rows: TreeRowView[] = [];
  for (const node of tree.nodes) {
    const { state, text: stateText } = STATE_OF[node.state];
    const single = node.type === "resource" || node.type === "external" ? node.objects[0] : undefined;
    const what =
      single !== undefined
        ? `${single.kind}/${single.name}`
        : node.objects.length > 0
          ? `${node.kind} ×${node.objects.length}`
          : node.kind;
    const blocked =
      node.blockedBy?.expression !== undefined && node.state !== TREE_STATES.waitingOnDependency
        ? `: ${node.blockedBy.expression}`
        : "";
    rows.push({ depth, label: `${node.id}: ${what}`, state, stateText, reason: `${node.reason}${blocked}` });
    for (const o of node.objects) if (o.instance !== undefined) rows.push(...treeRows(o.instance, depth + 1));
  }
  return rows;
}

function instanceState(object: KubeObject, tree: InstanceTree | undefined): { state: RowState; text: string } {
  if (tree !== undefined) {
    if (tree.ready) return { state: "ready", text: "Ready" };
    if (tree.state === "ERROR" || tree.nodes.some((n) => n.state === TREE_STATES.error))
      return { state: "error", text: `not Ready (${tree.state ?? tree.reason})` };
    if (tree.state === "DELETING") return { state: "deleting", text: "deleting" };
    return { state: "not-ready", text: `not Ready${tree.reason === "" ? "" : ` (${tree.reason})`}` };
  }
  // No tree (not permitted, or it does not compile here): what the controller wrote is all we know.
  const ready = conditionsOf(object).find((c) => c.type === "Ready");
  const state = text(record(object.status).state);
  if (ready?.status === "True") return { state: "ready", text: "Ready" };
  if (state === "ERROR") return { state: "error", text: "not Ready (ERROR)" };
  return { state: "not-ready", text: `not Ready${state === "" ? "" : ` (${state})`}` };
}

function mapRead<A, B>(read: Read<A>, f: (a: A) => B): Read<B> {
  return read.ok ? { ok: true, value: f(read.value) } : read;
}

function instanceView(snapshot: InstanceSnapshot, now: number): InstanceView {
  const meta = snapshot.object.metadata ?? {};
  const tree = snapshot.tree.ok ? snapshot.tree.value : undefined;
  const { state, text: stateText } = instanceState(snapshot.object, tree);
  const name = meta.name ?? "";
  return {
    key: meta.namespace === undefined ? name : `${meta.namespace}/${name}`,
    ...(meta.namespace === undefined ? {} : { namespace: meta.namespace }),
    name,
    state,
    stateText,
    age: age(meta.creationTimestamp, now),
    conditions: conditionsOf(snapshot.object),
    tree: mapRead(snapshot.tree, (t) => treeRows(t)),
  };
}

function rgdState(rgd: KubeObject): { state: RowState; text: string } {
  const state = text(record(rgd.status).state);
  const ready = conditionsOf(rgd).find((c) => c.type === "Ready");
  if (state === "Active" && ready?.status !== "False") return { state: "ready", text: "Active" };
  if (ready?.status === "False" || state === "Inactive")
    return { state: "error", text: state === "" ? "not Ready" : state };
  return { state: "not-ready", text: state === "" ? "no status yet" : state };
}

/** The picture's address names the generation, so a changed RGD is drawn again and an unchanged one is cached. */
export const graphUrlOf = (rgd: KubeObject): string =>
  `graph.svg?rgd=${encodeURIComponent(rgd.metadata?.name ?? "")}&generation=${String(rgd.metadata?.generation ?? 0)}`;

function rgdView(snapshot: RgdSnapshot, now: number): RgdView {
  const { state, text: stateText } = rgdState(snapshot.rgd);
  const byKey = (a: InstanceView, b: InstanceView): number => compareCodeUnits(a.key, b.key);
  return {
    name: snapshot.rgd.metadata?.name ?? "",
    kind: snapshot.kind === undefined ? "(kind not served)" : `${snapshot.kind.kind} (${snapshot.kind.apiVersion})`,
    state,
    stateText,
    age: age(snapshot.rgd.metadata?.creationTimestamp, now),
    conditions: conditionsOf(snapshot.rgd),
    ...(snapshot.compileError === undefined ? {} : { compileError: snapshot.compileError }),
    ...(snapshot.compileError !== undefined || snapshot.kind === undefined
      ? {}
      : { graphUrl: graphUrlOf(snapshot.rgd) }),
    scope: snapshot.scope,
    instances: mapRead(snapshot.instances, (list) => list.map((i) => instanceView(i, now)).sort(byKey)),
  };
}

const eventTime = (e: KubeObject): string =>
  text(e.lastTimestamp) || text(e.eventTime) || text(e.metadata?.creationTimestamp);

export function eventViews(events: readonly KubeObject[], now: number): EventView[] {
  return [...events]
    .sort((a, b) => (Date.parse(eventTime(b)) || 0) - (Date.parse(eventTime(a)) || 0))
    .slice(0, MAX_EVENTS)
    .map((e) => {
      const involved = record(e.involvedObject);
      const ns = text(involved.namespace);
      return {
        age: age(eventTime(e) || undefined, now),
        type: text(e.type),
        reason: text(e.reason),
        object: `${text(involved.kind)}/${ns === "" ? "" : `${ns}/`}${text(involved.name)}`,
        message: text(e.message),
      };
    });
}

export function uiViewOf(snapshot: ClusterSnapshot, now: number): UiView {
  return {
    server: snapshot.server,
    rgds: mapRead(snapshot.rgds, (list) =>
      list.map((r) => rgdView(r, now)).sort((a, b) => compareCodeUnits(a.name, b.name)),
    ),
    events: mapRead(snapshot.events, (list) => eventViews(list, now)),
  };
}
