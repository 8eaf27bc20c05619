/**
 * The pure half of reading an apply round's answers: what each outcome means for the inventory
 * and for the instance's conditions. A refused guarded write (apply-plan.ts) means "the object
 * there is not one we may write blindly": the executor then reads the live object and asks
 * `judgeExisting` what to do with it.
 */
import type { KubeJson } from "../../runtime/index.js";
import type { ApplyStep } from "./apply-plan.js";
import type { OwnedChild } from "./inventory.js";
import { describeConflict, judgeOwnership, type InstanceIdentity, type OwnershipVerdict } from "./ownership.js";
import { describeIdentity, type Inventory } from "./inventory.js";

/** How the user answered "may we take over existing objects?" (ANNOTATIONS.adopt). */
export type AdoptionPolicy = "never" | "adopt-and-release" | "adopt-and-delete";

export function adoptionPolicy(instanceValue: string | undefined, rgdValue: string | undefined): AdoptionPolicy {
  const value = (instanceValue ?? rgdValue)?.trim().toLowerCase();
  if (value === "true") return "adopt-and-release";
  if (value === "delete") return "adopt-and-delete";
  return "never";
}

export type AppliedOutcome =
  | { readonly kind: "written"; readonly response: KubeJson; readonly record?: OwnedChild }
  /** The guard refused the write: read the live object and judge it. */
  | { readonly kind: "exists"; readonly forgetUid?: string }
  | { readonly kind: "failed"; readonly message: string; readonly cause: unknown };

const uidOf = (object: KubeJson): string => (object.metadata as { uid?: string } | undefined)?.uid ?? "";

/**
 * A write refused by its guard: 409 (UID mismatch or no object with that UID; the create-only
 * resourceVersion met an existing object) or a 422 naming metadata.uid.
 */
export function isUidGuardRefusal(error: unknown): boolean {
  const status = (error as { status?: number } | undefined)?.status;
  const message = error instanceof Error ? error.message : String(error);
  return status === 409 || (status === 422 && /metadata\.uid|\buid\b/i.test(message));
}

export function readApplyOutcome(step: ApplyStep, result: PromiseSettledResult<KubeJson>): AppliedOutcome {
  if (result.status === "rejected") {
    if (isUidGuardRefusal(result.reason))
      return step.entry === undefined ? { kind: "exists" } : { kind: "exists", forgetUid: step.entry.uid };
    return {
      kind: "failed",
      message: result.reason instanceof Error ? result.reason.message : String(result.reason),
      cause: result.reason,
    };
  }
  const response = result.value;
  const uid = uidOf(response);
  if (step.mode === "create" || step.entry === undefined) {
    return { kind: "written", response, record: { ...step.identity, uid, nodeId: step.nodeId, ownership: "created" } };
  }
  // kube-apiserver refuses a UID-guarded write to an object that is gone (409), but should a server
  // ever re-create it instead, the new UID is what we own now.
  if (uid !== step.entry.uid)
    return { kind: "written", response, record: { ...step.identity, uid, nodeId: step.nodeId, ownership: "created" } };
  return { kind: "written", response };
}

export type ExistingDecision =
  /** Ours after all (created, then a crash before recording): record it; the next round writes it. */
  | { readonly kind: "record"; readonly entry: OwnedChild }
  /** Foreign, and the user opted into adoption: write it under its live UID. */
  | { readonly kind: "adopt"; readonly entry: OwnedChild }
  | { readonly kind: "conflict"; readonly message: string; readonly verdict: OwnershipVerdict }
  /** Gone again between the refusal and the read: try again next round. */
  | { readonly kind: "retry" };

export function judgeExisting(
  step: ApplyStep,
  live: KubeJson | undefined,
  owner: InstanceIdentity,
  inventory: Inventory,
  policy: AdoptionPolicy,
): ExistingDecision {
  if (live === undefined) return { kind: "retry" };
  const verdict = judgeOwnership(live, owner, inventory);
  const entry = (ownership: OwnedChild["ownership"]): OwnedChild => ({
    ...step.identity,
    uid: uidOf(live),
    nodeId: step.nodeId,
    ownership,
  });
  const what = describeIdentity(step.identity);
  switch (verdict.kind) {
    case "recorded":
    case "created-unrecorded":
      return { kind: "record", entry: entry("created") };
    case "foreign":
      if (policy !== "never") return { kind: "adopt", entry: entry("adopted") };
      return { kind: "conflict", message: describeConflict(verdict, what), verdict };
    case "other-instance":
      return { kind: "conflict", message: describeConflict(verdict, what), verdict };
  }
}
