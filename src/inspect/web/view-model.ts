/**
 * What every page of the web view shares, as data: a read from the cluster (with every read the
 * API server refused kept as "not permitted", never worked around), conditions, the `kro tree`
 * states and their words, Events, an RGD's own state, and the addresses of pages and pictures.
 * The pages' own models (overview-model.ts, instance-model.ts) build on these. Pure: `now` is passed in.
 */
import { compareCodeUnits } from "../../api/index.js";
import type { NodeState } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import { humanAge } from "../human-age.js";
import { TREE_STATES, type TreeState } from "../tree-model.js";

/** One read from the cluster: its value, or why there is none (refused by RBAC, or another error). */
export type Read<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly notPermitted: boolean; readonly message: string };

export interface ConditionView {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** A tree row's colour: the `kro tree` states, plus an RGD's own "not ready". */
export type RowState =
  "ready" | "waiting-readiness" | "waiting-dependency" | "excluded" | "error" | "deleting" | "not-ready";

export interface EventView {
  readonly age: string;
  readonly type: string;
  readonly reason: string;
  readonly object: string;
  readonly message: string;
  /** How many times the API server counted it (repeats are one row, not many). */
  readonly count: number;
}

/** Events shown, newest first. */
export const MAX_EVENTS = 30;

export const STATE_OF: Readonly<Record<TreeState, { state: RowState; text: string; picture: NodeState }>> = {
  [TREE_STATES.ready]: { state: "ready", text: "ready", picture: "ready" },
  [TREE_STATES.waitingForReadiness]: { state: "waiting-readiness", text: "waiting for readiness", picture: "waiting" },
  [TREE_STATES.waitingOnDependency]: { state: "waiting-dependency", text: "waiting on dependency", picture: "pending" },
  [TREE_STATES.excluded]: { state: "excluded", text: "excluded", picture: "excluded" },
  [TREE_STATES.error]: { state: "error", text: "error", picture: "error" },
  [TREE_STATES.deleting]: { state: "deleting", text: "deleting", picture: "pending" },
  [TREE_STATES.unknown]: { state: "not-ready", text: "not readable here", picture: "pending" },
};

export const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
export const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
export const age = (at: string | undefined, now: number): string =>
  at === undefined || Number.isNaN(Date.parse(at)) ? "-" : humanAge(now - Date.parse(at));

export function mapRead<A, B>(read: Read<A>, f: (a: A) => B): Read<B> {
  return read.ok ? { ok: true, value: f(read.value) } : read;
}

export function conditionsOf(object: KubeObject): ConditionView[] {
  const list = record(object.status).conditions;
  if (!Array.isArray(list)) return [];
  return list
    .map(record)
    .map((c) => ({ type: text(c.type), status: text(c.status), reason: text(c.reason), message: text(c.message) }));
}

/**
 * Conditions with each message said once: kro rolls a child's error up through ResourcesReady into
 * Ready, so the same words would stand in several rows. A message an earlier row (or `shown`, the
 * texts the page already shows elsewhere) already holds becomes a pointer to it.
 */
export function withoutRepeats(
  list: readonly ConditionView[],
  shown: ReadonlyMap<string, string> = new Map(),
): ConditionView[] {
  const seen = new Map<string, string>();
  return list.map((c) => {
    if (c.message === "") return c;
    const earlier = seen.get(c.message);
    if (earlier !== undefined) return { ...c, message: `(as ${earlier})` };
    seen.set(c.message, c.type);
    for (const [words, where] of shown)
      if (words.length >= 12 && c.message.includes(words)) return { ...c, message: `(see ${where})` };
    return c;
  });
}

export interface RgdStateView {
  readonly state: RowState;
  readonly text: string;
}

export function rgdState(rgd: KubeObject): RgdStateView {
  const state = text(record(rgd.status).state);
  const ready = conditionsOf(rgd).find((c) => c.type === "Ready");
  if (state === "Active" && ready?.status !== "False") return { state: "ready", text: "Active" };
  if (ready?.status === "False" || state === "Inactive")
    return { state: "error", text: state === "" ? "not Ready" : state };
  return { state: "not-ready", text: state === "" ? "no status yet" : state };
}

/**
 * The picture's address names the generation, so a changed RGD is drawn again and an unchanged one
 * is cached; `colors` (node id → state) paints an instance's states on it. Relative to the page's root.
 */
export function graphUrlOf(root: string, rgd: KubeObject, colors?: Readonly<Record<string, NodeState>>): string {
  const base = `${root}graph.svg?rgd=${encodeURIComponent(rgd.metadata?.name ?? "")}&generation=${String(rgd.metadata?.generation ?? 0)}`;
  if (colors === undefined) return base;
  const painted = Object.entries(colors)
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([id, state]) => `${id}:${state}`)
    .join(",");
  return `${base}&colors=${encodeURIComponent(painted)}`;
}

/** Where the page of one instance is (`_` stands for no namespace: a namespace is never named `_`). */
export const instanceHref = (root: string, rgd: string, namespace: string | undefined, name: string): string =>
  `${root}instances/${encodeURIComponent(rgd)}/${encodeURIComponent(namespace ?? "_")}/${encodeURIComponent(name)}`;
export const rgdHref = (root: string, rgd: string): string => `${root}rgds/${encodeURIComponent(rgd)}`;

const eventTime = (e: KubeObject): string =>
  text(e.lastTimestamp) || text(e.eventTime) || text(e.metadata?.creationTimestamp);

/** Events newest first, at most MAX_EVENTS rows; the same reason and message about the same object is one row. */
export function eventViews(events: readonly KubeObject[], now: number): EventView[] {
  const rows = new Map<string, EventView>();
  const sorted = [...events].sort((a, b) => (Date.parse(eventTime(b)) || 0) - (Date.parse(eventTime(a)) || 0));
  for (const e of sorted) {
    const involved = record(e.involvedObject);
    const ns = text(involved.namespace);
    const object = `${text(involved.kind)}/${ns === "" ? "" : `${ns}/`}${text(involved.name)}`;
    const count = typeof e.count === "number" && e.count > 0 ? e.count : 1;
    const key = `${object}\n${text(e.type)}\n${text(e.reason)}\n${text(e.message)}`;
    const known = rows.get(key);
    if (known !== undefined) {
      rows.set(key, { ...known, count: known.count + count });
      continue;
    }
    if (rows.size >= MAX_EVENTS) continue;
    rows.set(key, {
      age: age(eventTime(e) || undefined, now),
      type: text(e.type),
      reason: text(e.reason),
      object,
      message: text(e.message),
      count,
    });
  }
  return [...rows.values()];
}
