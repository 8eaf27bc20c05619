/**
 * No stealing between instances (kro-reference §6.8: "resource belongs to a different
 * ApplySet"): a forced server-side apply would silently take over an object another instance
 * created when two instances render the same name. Before applying, the live object's
 * instance-id label is compared with ours; a different one is an error on this instance and the
 * object is left exactly as its owner made it. Objects without the label (made by hand) are
 * adopted, as kro does.
 */
import { LABELS } from "../api/index.js";
import type { KubeJson } from "../runtime/index.js";

const instanceIdOf = (object: KubeJson | undefined): string | undefined => {
  const labels = (object?.metadata as { labels?: Record<string, unknown> } | undefined)?.labels;
  const id = labels?.[LABELS.instanceId];
  return typeof id === "string" && id !== "" ? id : undefined;
};

/** Why `desired` must not be applied over `live`, or undefined when it may. */
export function ownershipConflict(desired: KubeJson, live: KubeJson | undefined): string | undefined {
  const ours = instanceIdOf(desired);
  const theirs = instanceIdOf(live);
  if (ours === undefined || theirs === undefined || ours === theirs) return undefined;
  const labels = (live?.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
  const owner = [labels[LABELS.instanceKind], [labels[LABELS.instanceNamespace], labels[LABELS.instanceName]].filter((p) => p !== undefined).join("/")].filter((p) => p !== undefined && p !== "").join(" ");
  return `the object belongs to another instance (${owner === "" ? `instance id ${theirs}` : owner}); refusing to take it over`;
}
