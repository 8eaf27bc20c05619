/**
 * One instance's page as data: its state, the graph picture painted with its nodes' states, its
 * children (the tree `kro tree` computes, nested instances indented, each object with its
 * cluster), its conditions (each message said once) and the Events about it. Pure.
 */
import { INSTANCE_NODE_ID, type NodeState } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import { TREE_STATES, type InstanceTree, type TreeNode, type TreeObject } from "../tree-model.js";
import { INSTANCE_STATE_TEXT, instanceStatusOf, type InstanceState } from "./instance-state.js";
import {
  age,
  conditionsOf,
  eventViews,
  graphUrlOf,
  mapRead,
  rgdHref,
  STATE_OF,
  withoutRepeats,
  type ConditionView,
  type EventView,
  type Read,
  type RowState,
} from "./view-model.js";

export interface InstancePageSnapshot {
  readonly server: string;
  /** The RGD named in the address, as the asker's RGD list has it (undefined: not listed for them). */
  readonly rgd?: KubeObject;
  readonly rgdName: string;
  readonly namespace?: string;
  readonly name: string;
  readonly object: Read<KubeObject>;
  readonly tree: Read<InstanceTree>;
  readonly events: Read<readonly KubeObject[]>;
}

/** One row of the children table: an object of a node (or the node alone while it has none). */
export interface ChildRow {
  readonly depth: number;
  readonly node: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  /** The cluster it lives in; "" for the hub (the cluster the instance is in). */
  readonly cluster: string;
  readonly state: RowState;
  readonly stateText: string;
  /** Said on the node's first row only: a collection's reason is not repeated per object. */
  readonly reason: string;
  readonly age: string;
}

export interface InstancePageView {
  readonly server: string;
  readonly rgdName: string;
  readonly rgdHref: string;
  readonly key: string;
  readonly kind: string;
  readonly state?: InstanceState;
  readonly stateText: string;
  readonly age: string;
  readonly object: Read<true>;
  readonly graphUrl?: string;
  readonly children: Read<readonly ChildRow[]>;
  readonly conditions: readonly ConditionView[];
  readonly events: Read<readonly EventView[]>;
}

const clusterOf = (o: TreeObject): string => (o as TreeObject & { readonly cluster?: string }).cluster ?? "";

function nodeReason(node: TreeNode): string {
  const blocked =
    node.blockedBy?.expression !== undefined && node.state !== TREE_STATES.waitingOnDependency
      ? `: ${node.blockedBy.expression}`
      : "";
  return `${node.reason}${blocked}`;
}

/** The tree as table rows, nested instances expanded under the object that is one. */
export function childRows(tree: InstanceTree, now: number, depth = 0): ChildRow[] {
  const rows: ChildRow[] = [];
  for (const node of tree.nodes) {
    const { state, text } = STATE_OF[node.state];
    const reason = nodeReason(node);
    const base = { depth, node: node.id, state, stateText: text };
    if (node.objects.length === 0)
      rows.push({ ...base, kind: node.kind, name: "", namespace: "", cluster: "", reason, age: "" });
    node.objects.forEach((o, index) => {
      rows.push({
        ...base,
        kind: o.kind,
        name: o.name,
        namespace: o.namespace ?? "",
        cluster: clusterOf(o),
        reason: index === 0 ? reason : "",
        age: age(o.createdAt, now),
      });
      if (o.instance !== undefined) rows.push(...childRows(o.instance, now, depth + 1));
    });
  }
  return rows;
}

/** The picture's colours: each node's state, and the instance's own. */
export function pictureColors(tree: InstanceTree): Record<string, NodeState> {
  const colors: Record<string, NodeState> = {
    [INSTANCE_NODE_ID]: tree.ready
      ? "ready"
      : tree.state === "ERROR" || tree.nodes.some((n) => n.state === TREE_STATES.error)
        ? "error"
        : "waiting",
  };
  for (const node of tree.nodes) colors[node.id] = STATE_OF[node.state].picture;
  return colors;
}

/** Texts the children table already shows (a node's error), so conditions point there instead of repeating them. */
function shownByTree(rows: readonly ChildRow[]): Map<string, string> {
  const shown = new Map<string, string>();
  for (const r of rows) if (r.state === "error" && r.reason !== "") shown.set(r.reason, `${r.node} in children`);
  return shown;
}

export function instancePageOf(snapshot: InstancePageSnapshot, root: string, now: number): InstancePageView {
  const object = snapshot.object.ok ? snapshot.object.value : undefined;
  const status = object === undefined ? undefined : instanceStatusOf(object);
  const children = mapRead(snapshot.tree, (t) => childRows(t, now));
  const tree = snapshot.tree.ok ? snapshot.tree.value : undefined;
  return {
    server: snapshot.server,
    rgdName: snapshot.rgdName,
    rgdHref: rgdHref(root, snapshot.rgdName),
    key: snapshot.namespace === undefined ? snapshot.name : `${snapshot.namespace}/${snapshot.name}`,
    kind: object?.kind ?? tree?.kind ?? "",
    ...(status === undefined ? {} : { state: status.state }),
    stateText: status === undefined ? "" : INSTANCE_STATE_TEXT[status.state],
    age: age(object?.metadata?.creationTimestamp, now),
    object: mapRead(snapshot.object, () => true as const),
    ...(snapshot.rgd === undefined || tree === undefined
      ? {}
      : { graphUrl: graphUrlOf(root, snapshot.rgd, pictureColors(tree)) }),
    children,
    conditions:
      object === undefined
        ? []
        : withoutRepeats(conditionsOf(object), children.ok ? shownByTree(children.value) : new Map()),
    events: mapRead(snapshot.events, (list) => eventViews(list, now)),
  };
}
