/**
 * The author policy heals: every ValidatingAdmissionPolicy and binding the
 * controller made is watched, and an event that shows one deleted or different from what was
 * applied marks the RGD's policy as not in force (context/author-policy-state.ts) and queues the
 * RGD, whose reconcile applies it again — within the watch latency, not at the next restart.
 */
import { KRO_API_VERSION, LABELS, RGD } from "../../api/index.js";
import type { InformerLease, KubeObject } from "../../kube/index.js";
import type { ControllerContext } from "../context/index.js";
import { recordEvent } from "../context/index.js";
import { ensureDelegationPolicy } from "./delegation-policy.js";
import { DELEGATION_POLICY_KEY } from "./delegation-policy-objects.js";
import { proveDelegationPolicyLoaded } from "./policy-load-proof.js";

/** The static policy is restored here (no RGD owns it), then every delegating RGD is judged again. */
function healDelegationPolicy(
  ctx: Pick<
    ControllerContext,
    "client" | "authorPolicies" | "options" | "logger" | "rgdQueue" | "delegations" | "mayWriteCluster"
  >,
  attempt = 0,
): void {
  void ensureDelegationPolicy(ctx).then((ok) => {
    if (ok) proveDelegationPolicyLoaded(ctx);
    for (const name of ctx.delegations.delegating) ctx.rgdQueue.add(name);
    if (!ok && !ctx.rgdQueue.isShutDown)
      setTimeout(
        () => {
          healDelegationPolicy(ctx, attempt + 1);
        },
        Math.min(30_000, 500 * 2 ** attempt),
      ).unref();
  });
}

const VAP_API_VERSION = "admissionregistration.k8s.io/v1";
const KINDS = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"] as const;

/** Starts the watches; returns their leases (released when the controller stops). */
export function watchAuthorPolicies(
  ctx: Pick<
    ControllerContext,
    | "informers"
    | "authorPolicies"
    | "rgdQueue"
    | "logger"
    | "eventClient"
    | "now"
    | "client"
    | "options"
    | "delegations"
    | "mayWriteCluster"
  >,
): InformerLease<KubeObject>[] {
  return KINDS.map((kind) => {
    const lease = ctx.informers.acquire({
      apiVersion: VAP_API_VERSION,
      kind,
      labelSelector: `${LABELS.managedBy}=kro,${LABELS.rgdId}`,
    });
    const seen = (object: KubeObject, gone: boolean) => {
      const uid = object.metadata?.labels?.[LABELS.rgdId] ?? "";
      const name = object.metadata?.name ?? "";
      // The event's resourceVersion (for a delete: the deletion's revision) opens the breach window.
      const rgdName = ctx.authorPolicies.observe(
        uid,
        kind,
        name,
        gone ? undefined : (object as { spec?: unknown }).spec,
        object.metadata?.resourceVersion,
      );
      if (rgdName === undefined) return;
      const what = gone ? "deleted" : "changed";
      ctx.logger.warn(
        { rgd: rgdName, kind, name },
        rgdName === DELEGATION_POLICY_KEY
          ? `delegation policy ${what} outside the controller: restoring it; delegations written meanwhile are not applied`
          : `author policy ${what} outside the controller: its instances wait until it is restored`,
      );
      if (rgdName === DELEGATION_POLICY_KEY) {
        healDelegationPolicy(ctx);
        return;
      }
      const rgd = { apiVersion: KRO_API_VERSION, kind: RGD.kind, metadata: { name: rgdName, uid } } as KubeObject;
      void recordEvent(
        ctx,
        rgd,
        "AuthorPolicyBreached",
        `${kind} ${name} was ${what} outside the controller; restoring it, and instances written meanwhile are not acted on until written again`,
        "Warning",
      );
      ctx.rgdQueue.add(rgdName);
    };
    lease.informer.addHandlers({
      onAdd: (o) => {
        seen(o, false);
      },
      onUpdate: (_old, o) => {
        seen(o, false);
      },
      onDelete: (o) => {
        seen(o, true);
      },
    });
    return lease;
  });
}
