/**
 * No stealing between instances (kro-reference §6.8: "resource belongs to a different
 * ApplySet"): a forced server-side apply would silently take over an object another instance
 * created when two instances render the same name. Before applying, the live object's owner
 * labels are compared with ours; a different owner is an error on this instance and the object
 * is left exactly as its owner made it. As with kro's ApplySet id (a hash of the instance's
 * name, namespace, kind and group), the owner is the instance's identity, not its UID: an
 * instance deleted and recreated under the same name adopts what its predecessor left behind.
 * Objects without owner labels (made by hand) are adopted too, as kro does.
 */
import { LABELS } from "../api/index.js";
import type { KubeJson } from "../runtime/index.js";

interface Owner { readonly group: string; readonly kind: string; readonly namespace: string | undefined; readonly name: string }

function ownerOf(object: KubeJson | undefined): Owner | undefined {
  const labels = (object?.metadata as { labels?: Record<string, unknown> } | undefined)?.labels ?? {};
  const text = (key: string) => (typeof labels[key] === "string" ? labels[key] : undefined);
  const name = text(LABELS.instanceName);
  const kind = text(LABELS.instanceKind);
  if (name === undefined || kind === undefined) return undefined;
  return { group: text(LABELS.instanceGroup) ?? "", kind, namespace: text(LABELS.instanceNamespace), name };
}

const sameOwner = (a: Owner, b: Owner) => a.group === b.group && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;

/** Why `desired` must not be applied over `live`, or undefined when it may. */
export function ownershipConflict(desired: KubeJson, live: KubeJson | undefined): string | undefined {
  const ours = ownerOf(desired);
  const theirs = ownerOf(live);
  if (ours === undefined || theirs === undefined || sameOwner(ours, theirs)) return undefined;
  const who = `${theirs.kind}${theirs.group === "" ? "" : `.${theirs.group}`} ${theirs.namespace === undefined ? "" : `${theirs.namespace}/`}${theirs.name}`;
  return `the object belongs to another instance (${who}); refusing to take it over`;
}
