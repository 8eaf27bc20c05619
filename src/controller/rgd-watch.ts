/**
 * The watches that feed the RGD queue: the RGD CRD installed first (an empty cluster works), the
 * delegation policy checked before any RGD is judged, the RGD author record's policy and webhook
 * installed before any RGD is written (rgd-author-admission.ts), then the RGD informer (with the controller's
 * selector), the CRD informer (a CRD we generated, edited or deleted by hand is restored by its
 * RGD's next reconcile; a user CRD appearing lets a template-dialect RGD waiting for it become
 * Active) and the author policies' informers.
 */
import { KRO_API_VERSION, LABELS, labelMatches, RGD } from "../api/index.js";
import { containmentPolicyOf, delegates, rgdAuthorOf } from "../graph/index.js";
import type { InformerLease, KubeObject } from "../kube/index.js";
import { onCrdChange } from "./rgd/index.js";
import { CRD_TYPE, controllerCrdsInstalled, installControllerCrds } from "./crds/index.js";
import { delegationFingerprint, jsonEqual, type ControllerContext } from "./context/index.js";
import {
  DELEGATION_KEYS,
  delegationWriteKey,
  ensureDelegationPolicy,
  proveDelegationPolicyLoaded,
  RgdAuthorAdmission,
  watchAuthorPolicies,
  watchRequesterWebhooks,
  type PolicyBarrier,
} from "./author-policy/index.js";
import type { ClusterRegistry } from "./clusters/index.js";
import type { StartControllerOptions } from "./controller-options.js";

export interface RgdWatch {
  /** The informers health looks at: RGDs, CRDs, author policies. */
  readonly leases: readonly InformerLease<KubeObject>[];
  /** Queues every RGD this controller watches. */
  resync(): void;
  /** Resolves once the RGD and CRD informers have synced and the cluster registry has started. */
  readonly synced: Promise<void>;
}

export async function watchRgds(
  ctx: ControllerContext,
  options: Pick<StartControllerOptions, "installRgdCrd" | "sharding" | "rgdSelector">,
  policyBarrier: PolicyBarrier,
  clusters: Pick<ClusterRegistry, "start">,
  signal: AbortSignal,
): Promise<RgdWatch> {
  const { client, informers, rgdQueue, logger } = ctx;
  if (options.installRgdCrd !== false) {
    const leader = options.sharding?.leader;
    await (leader === undefined
      ? installControllerCrds(client)
      : controllerCrdsInstalled(client, leader, signal, logger));
  }
  // Before any RGD is judged: whether delegations written so far passed it (delegation-policy.ts).
  await ensureDelegationPolicy(ctx);
  proveDelegationPolicyLoaded(ctx);
  // Who writes an RGD from now on is recorded: what its instances cause is bounded by their rights.
  const authorship = new RgdAuthorAdmission(ctx, options.rgdSelector);
  await authorship.ensure();
  ctx.conversion.onRotation(() => void authorship.ensure());
  options.sharding?.leader.onAcquired(() => void authorship.ensure());
  const rgdLease: InformerLease<KubeObject> = informers.acquire({
    apiVersion: KRO_API_VERSION,
    kind: RGD.kind,
    ...(options.rgdSelector === undefined ? {} : { labelSelector: options.rgdSelector }),
  });
  // A delegation written now is judged (admitted under kro-delegation?) once the policy watch has caught up.
  const delegationWritten = (old: KubeObject | undefined, next: KubeObject) => {
    if (!rgdLease.informer.hasSynced || !delegates(containmentPolicyOf(next))) return;
    if (
      old !== undefined &&
      delegationFingerprint(old, DELEGATION_KEYS) === delegationFingerprint(next, DELEGATION_KEYS)
    )
      return;
    ctx.authorPolicies.seen(
      delegationWriteKey(next.metadata?.name ?? ""),
      next.metadata?.resourceVersion,
      policyBarrier.ticket(),
    );
  };
  rgdLease.informer.addHandlers({
    onAdd: (o) => {
      delegationWritten(undefined, o);
      rgdQueue.add(o.metadata?.name ?? "");
    },
    onUpdate: (old, next) => {
      delegationWritten(old, next);
      if (rgdChanged(old, next)) rgdQueue.add(next.metadata?.name ?? "");
    },
    onDelete: (o) => {
      rgdQueue.add(o.metadata?.name ?? "");
    },
  });
  const crdLease: InformerLease<KubeObject> = informers.acquire({ ...CRD_TYPE, metadataOnly: true });
  // Charts reading .Capabilities follow the cluster's discovery (helm-cluster.ts).
  const capabilitiesChanged = (): void => {
    if (crdLease.informer.hasSynced) onCrdChange(ctx);
  };
  const crdChanged = (crd: KubeObject): void => {
    enqueueRgdsFor(rgdLease, rgdQueue, crd);
    capabilitiesChanged();
  };
  crdLease.informer.addHandlers({
    onAdd: crdChanged,
    onUpdate: (_old, crd) => {
      crdChanged(crd);
    },
    onDelete: crdChanged,
  });
  const policyLeases = watchAuthorPolicies(ctx);
  policyBarrier.attach(policyLeases.map((lease) => lease.informer));
  return {
    leases: [rgdLease, crdLease, ...policyLeases, watchRequesterWebhooks(ctx), ...authorship.watch()],
    resync: () => {
      for (const rgd of rgdLease.informer.store.list()) rgdQueue.add(rgd.metadata?.name ?? "");
    },
    synced: Promise.all([
      rgdLease.informer.waitForSync({ timeoutMs: 60_000 }),
      crdLease.informer.waitForSync({ timeoutMs: 60_000 }),
      clusters.start(),
    ]).then(() => undefined),
  };
}

/** The RGDs a CRD event concerns: its owner (by label) and those whose kind lives in its group. */
function enqueueRgdsFor(
  rgdLease: InformerLease<KubeObject>,
  rgdQueue: ControllerContext["rgdQueue"],
  crd: KubeObject,
): void {
  // Only RGDs this controller watches (a selector may shard them between controllers).
  // The label holds the RGD's name, shortened when over 63 characters (api/label-value.ts).
  const owner = crd.metadata?.labels?.[LABELS.rgdName];
  if (owner !== undefined && rgdLease.informer.store.getByName(undefined, owner) !== undefined) rgdQueue.add(owner);
  else if (owner !== undefined)
    for (const rgd of rgdLease.informer.store.list())
      if (labelMatches(owner, rgd.metadata?.name ?? "")) rgdQueue.add(rgd.metadata?.name ?? "");
  const [, ...groupParts] = (crd.metadata?.name ?? "").split(".");
  const group = groupParts.join(".");
  for (const rgd of rgdLease.informer.store.list()) {
    const resourceKind = (rgd.spec as { resourceKind?: { group?: string } } | undefined)?.resourceKind;
    if (resourceKind?.group === group) rgdQueue.add(rgd.metadata?.name ?? "");
  }
}

/** Whether an RGD update needs a reconcile: what the controller's own status writes never change. */
export function rgdChanged(old: KubeObject, next: KubeObject): boolean {
  const annotation = (o: KubeObject) => o.metadata?.annotations?.["kro.run/allow-breaking-changes"];
  return (
    old.metadata?.generation !== next.metadata?.generation ||
    (old.metadata?.deletionTimestamp === undefined) !== (next.metadata?.deletionTimestamp === undefined) ||
    annotation(old) !== annotation(next) ||
    // Containment and author-check opt-ins are annotations: they change what instances may write.
    !jsonEqual(containmentPolicyOf(old), containmentPolicyOf(next)) ||
    // So are the delegation's recorded author (re-verified) and the stamps of a delegation.
    delegationFingerprint(old, DELEGATION_KEYS) !== delegationFingerprint(next, DELEGATION_KEYS) ||
    // And its recorded author, whose rights bound what its instances cause.
    !jsonEqual(rgdAuthorOf(old), rgdAuthorOf(next))
  );
}
