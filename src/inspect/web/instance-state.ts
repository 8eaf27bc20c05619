/**
 * An instance's state as the overview counts it, from the instance object alone (status.state,
 * its conditions, metadata): no child is read, so a list of 1,000 instances is classified from one
 * list request. Five states a person acts on: ready, in progress (the controller is working on the
 * current generation), waiting (the controller has not written status for the current generation
 * yet), error, deleting. Pure.
 */
import { INSTANCE_CONDITIONS, INSTANCE_STATES, KSTATUS_CONDITIONS } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";

export const INSTANCE_STATE_ORDER = ["ready", "in-progress", "waiting", "error", "deleting"] as const;
export type InstanceState = (typeof INSTANCE_STATE_ORDER)[number];

export const INSTANCE_STATE_TEXT: Readonly<Record<InstanceState, string>> = {
  ready: "Ready",
  "in-progress": "in progress",
  waiting: "waiting",
  error: "error",
  deleting: "deleting",
};

export interface InstanceStatus {
  readonly state: InstanceState;
  /** One line: why it is in that state (a condition's message or reason), "" when nothing was said. */
  readonly reason: string;
}

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string => (typeof v === "string" ? v : "");

function conditions(object: KubeObject): Condition[] {
  const list = record(object.status).conditions;
  if (!Array.isArray(list)) return [];
  return list.map(record).map((c) => ({
    type: text(c.type),
    status: text(c.status),
    reason: text(c.reason),
    message: text(c.message),
    ...(typeof c.observedGeneration === "number" ? { observedGeneration: c.observedGeneration } : {}),
  }));
}

/** The longest line shown in a list row; the instance page has the whole message. */
export const MAX_REASON = 160;

/** A message as one line of at most MAX_REASON characters. */
export function oneLine(message: string): string {
  const line = message.replace(/\s+/g, " ").trim();
  return line.length <= MAX_REASON ? line : `${line.slice(0, MAX_REASON - 1)}…`;
}

const said = (c: Condition | undefined): string => oneLine(c === undefined ? "" : c.message || c.reason);

/** A condition that says something failed: the instance is in error, not merely not Ready yet. */
function failing(list: readonly Condition[]): Condition | undefined {
  return list.find(
    (c) =>
      (c.type === KSTATUS_CONDITIONS.stalled && c.status === "True") ||
      (c.status === "False" &&
        (c.type === INSTANCE_CONDITIONS.instanceManaged ||
          c.type === INSTANCE_CONDITIONS.graphResolved ||
          (c.type === INSTANCE_CONDITIONS.resourcesReady && /error/i.test(c.message)))),
  );
}

export function instanceStatusOf(object: KubeObject): InstanceStatus {
  const list = conditions(object);
  const ready = list.find((c) => c.type === INSTANCE_CONDITIONS.ready);
  const state = text(record(object.status).state);
  if (object.metadata?.deletionTimestamp !== undefined || state === INSTANCE_STATES.deleting)
    return { state: "deleting", reason: said(ready) };
  const failed = failing(list);
  if (state === INSTANCE_STATES.error || failed !== undefined) return { state: "error", reason: said(failed ?? ready) };
  const generation = object.metadata?.generation;
  const stale =
    ready === undefined ||
    (generation !== undefined && ready.observedGeneration !== undefined && ready.observedGeneration < generation);
  if (stale)
    return { state: "waiting", reason: ready === undefined ? "no status from the controller yet" : said(ready) };
  if (ready.status === "True") return { state: "ready", reason: "" };
  return { state: "in-progress", reason: said(ready) };
}
