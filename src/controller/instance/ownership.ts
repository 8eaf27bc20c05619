/**
 * Whose object is this? Pure verdicts on a *live* object (read from the API server, never from a
 * label-filtered cache), used before we write to an object we have no UID record of, and before we
 * delete or release anything.
 *
 * - "recorded": the inventory names this very object (same UID);
 * - "created-unrecorded": it carries this instance's UID label and its creation key, so we made it
 *   and a crash kept us from recording it (see inventory.ts);
 * - "other-instance": another instance's owner labels: never taken over, even with adoption on;
 * - "foreign": anything else, including look-alikes with our labels but not our key. Written to
 *   only with the user's adoption opt-in; never deleted.
 */
import { ANNOTATIONS, LABELS, labelMatches } from "../../api/index.js";
import type { KubeJson } from "../../runtime/index.js";
import type { Inventory } from "./inventory.js";

export type OwnershipVerdict =
  | { readonly kind: "recorded" }
  | { readonly kind: "created-unrecorded"; readonly uid: string }
  | { readonly kind: "other-instance"; readonly owner: string }
  | { readonly kind: "foreign"; readonly uid: string };

export interface InstanceIdentity {
  readonly uid: string;
  readonly group: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

interface Meta {
  uid?: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}
const metaOf = (object: KubeJson): Meta => object.metadata ?? {};
const text = (record: Record<string, unknown> | undefined, key: string) =>
  typeof record?.[key] === "string" ? record[key] : undefined;

/** True when the object carries this instance's UID label (kro.run/instance-id). */
export function carriesOwnerLabel(object: KubeJson, owner: InstanceIdentity): boolean {
  return text(metaOf(object).labels, LABELS.instanceId) === owner.uid;
}

export function judgeOwnership(live: KubeJson, owner: InstanceIdentity, inventory: Inventory): OwnershipVerdict {
  const meta = metaOf(live);
  const uid = meta.uid ?? "";
  if (uid !== "" && inventory.entries.some((e) => e.uid === uid)) return { kind: "recorded" };
  const key = text(meta.annotations, ANNOTATIONS.creationKey);
  if (carriesOwnerLabel(live, owner) && inventory.key !== undefined && key === inventory.key)
    return { kind: "created-unrecorded", uid };
  const other = otherOwner(meta.labels, owner);
  if (other !== undefined) return { kind: "other-instance", owner: other };
  return { kind: "foreign", uid };
}

/** The other instance named by the owner labels, when they name one that is not us. */
function otherOwner(labels: Record<string, unknown> | undefined, owner: InstanceIdentity): string | undefined {
  const name = text(labels, LABELS.instanceName);
  const kind = text(labels, LABELS.instanceKind);
  if (name === undefined || kind === undefined) return undefined;
  const id = text(labels, LABELS.instanceId);
  if (id !== undefined && id === owner.uid) return undefined;
  const group = text(labels, LABELS.instanceGroup) ?? "";
  const namespace = text(labels, LABELS.instanceNamespace);
  // Label values are the owner's names shortened past 63 characters (api/label-value.ts).
  const same =
    labelMatches(group, owner.group) &&
    labelMatches(kind, owner.kind) &&
    labelMatches(name, owner.name) &&
    (namespace === undefined
      ? owner.namespace === undefined
      : owner.namespace !== undefined && labelMatches(namespace, owner.namespace));
  // A predecessor with our name (deleted and recreated) left this behind: not ours either, but not
  // "another instance" in a way the user can act on — report it as foreign with the UID mismatch.
  if (same) return undefined;
  return `${kind}${group === "" ? "" : `.${group}`} ${namespace === undefined ? "" : `${namespace}/`}${name}`;
}

/** Human wording of a verdict that blocks a write, for the instance's condition. */
export function describeConflict(verdict: OwnershipVerdict, what: string): string {
  switch (verdict.kind) {
    case "other-instance":
      return `${what} belongs to another instance (${verdict.owner}); refusing to take it over`;
    case "foreign":
      return (
        `${what} already exists and was not created by this instance; nothing was written to it. ` +
        `To take it over, set the annotation ${ANNOTATIONS.adopt}=true on the instance (released, not deleted, when the instance goes)`
      );
    default:
      return `${what}: no conflict`;
  }
}
