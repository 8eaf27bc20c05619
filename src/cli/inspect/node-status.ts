/**
 * One resource's live state in words and as a picture colour: what `kro dev` shows per resource
 * (waiting on what, applied, ready) and what `kro graph --instance` colours. Pure: it reads the
 * runtime's evaluation of a node and the controller's apply error for it, if any.
 */
import { INSTANCE_NODE_ID, type NodeState as PictureState } from "../../graph/index.js";
import type { LiveInstance } from "../../inspect/index.js";
import { NODE_STATES, type NodeEvaluation } from "../../runtime/index.js";

export interface NodeStatus {
  readonly text: string;
  readonly picture: PictureState;
}

export function describeNode(node: NodeEvaluation, applyError?: string): NodeStatus {
  if (applyError !== undefined) return { text: `error: ${applyError}`, picture: "error" };
  if (node.error !== undefined) return { text: `error: ${node.error}`, picture: "error" };
  const pending = node.pending;
  switch (node.state) {
    case NODE_STATES.synced:
      return { text: "ready", picture: "ready" };
    case NODE_STATES.skipped:
      return { text: "skipped (includeWhen is false)", picture: "excluded" };
    case NODE_STATES.error:
      return { text: "error", picture: "error" };
    case NODE_STATES.deleting:
      return { text: "deleting", picture: "pending" };
    case NODE_STATES.deleted:
      return { text: "deleted", picture: "excluded" };
    case NODE_STATES.waitingForReadiness:
      return {
        text: `applied, waiting for readiness${pending?.expression === undefined ? "" : ` (${pending.expression})`}`,
        picture: "waiting",
      };
    case NODE_STATES.inProgress:
      break;
  }
  if (pending === undefined) return { text: "in progress", picture: "pending" };
  switch (pending.kind) {
    case "dependency-not-ready":
      return { text: `waiting on ${(pending.waitingOn ?? []).join(", ") || "its dependencies"}`, picture: "pending" };
    case "data-pending":
      return { text: `waiting for ${pending.missingPath ?? pending.expression ?? "data"}`, picture: "pending" };
    case "not-found":
      return { text: `waiting for the external object: ${pending.message}`, picture: "pending" };
    case "readiness":
      return {
        text: `applied, waiting for readiness${pending.expression === undefined ? "" : ` (${pending.expression})`}`,
        picture: "waiting",
      };
    case "terminating":
      return { text: "waiting for the old object to finish deleting", picture: "pending" };
  }
}

/** The instance's own colour from the state the controller wrote (ACTIVE, IN_PROGRESS, ERROR, DELETING). */
export function instancePicture(state: unknown): PictureState {
  switch (state) {
    case "ACTIVE":
      return "ready";
    case "ERROR":
      return "error";
    case "IN_PROGRESS":
      return "waiting";
    default:
      return "pending";
  }
}

/** Node id (and `instance`) → picture state, for graphPicture's colorBy. */
export function liveColors(live: LiveInstance): Record<string, PictureState> {
  const colors: Record<string, PictureState> = {
    [INSTANCE_NODE_ID]: instancePicture((live.instance.status as { state?: unknown } | undefined)?.state),
  };
  for (const node of live.evaluation.nodes) colors[node.id] = describeNode(node).picture;
  return colors;
}
