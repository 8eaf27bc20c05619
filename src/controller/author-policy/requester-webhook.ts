/**
 * Per RGD whose author checks give the write gate rights to ask (instance data chooses where some
 * child goes or what it reads, or an instance may adopt): a MutatingWebhookConfiguration `kro-requester.<rgd>` that sends every
 * instance write to the controller's requester webhook (writer-record-review.ts), which records the
 * writer on the instance. Owned by the RGD (garbage-collected with it), served on the conversion
 * webhook's port and certificate (rewritten with every CA rotation, like the CRDs' caBundle).
 *
 * `failurePolicy: Ignore`: a controller that is down never blocks instance writes; an instance
 * written meanwhile has no record (or keeps one the author policy proved), and the write gate then
 * relies on admission's check alone, as for instances written before this webhook existed.
 */
import { FIELD_MANAGERS, KRO_API_VERSION, LABELS, RGD } from "../../api/index.js";
import type { InformerLease, KubeObject } from "../../kube/index.js";
import { isNotFound } from "../../kube/index.js";
import type { WebhookClientConfig } from "../../schema/index.js";
import type { ControllerContext, InstanceKind } from "../context/index.js";
import { policyBaseName } from "./author-policy-objects.js";
import { REQUESTER_PATH, REQUESTER_RECORD, reviewWriterRecord, writerRecordWebhook } from "./writer-record-review.js";

const API_VERSION = "admissionregistration.k8s.io/v1";
const KIND = "MutatingWebhookConfiguration";

export function requesterWebhookName(rgdName: string): string {
  return policyBaseName(rgdName).replace(/^kro-author\./, "kro-requester.");
}

export function requesterWebhookObject(input: {
  readonly rgdName: string;
  readonly rgdUid: string;
  readonly instance: Pick<InstanceKind, "group" | "plural">;
  readonly clientConfig: WebhookClientConfig;
  readonly controllerUser: string | undefined;
}): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      name: requesterWebhookName(input.rgdName),
      labels: { [LABELS.rgdId]: input.rgdUid, [LABELS.managedBy]: "kro" },
      ownerReferences: [
        { apiVersion: KRO_API_VERSION, kind: RGD.kind, name: input.rgdName, uid: input.rgdUid, controller: true },
      ],
    },
    webhooks: [
      writerRecordWebhook({
        name: "requester.kro.run",
        clientConfig: input.clientConfig,
        rules: [
          {
            apiGroups: [input.instance.group],
            apiVersions: ["*"],
            resources: [input.instance.plural],
            operations: ["CREATE", "UPDATE"],
            scope: "*",
          },
        ],
        controllerUser: input.controllerUser,
      }),
    ],
  };
}

type Ctx = Pick<ControllerContext, "client" | "conversion" | "controllerUser" | "logger">;

/**
 * Installs the RGD's requester webhook when it is needed, and removes it when it was and is no
 * longer (after a restart a stale one may stay until the RGD goes: it records the truth anyway). Failing is not fatal: the record is a
 * convenience the author policy keeps honest; without it the gate relies on admission alone.
 */
export async function ensureRequesterWebhook(
  ctx: Ctx,
  rgd: KubeObject,
  instance: Pick<InstanceKind, "group" | "plural">,
  needed: boolean,
  wasNeeded: boolean,
): Promise<void> {
  const rgdName = rgd.metadata?.name ?? "";
  const ref = { apiVersion: API_VERSION, kind: KIND, name: requesterWebhookName(rgdName) };
  try {
    if (!needed) {
      if (!wasNeeded) return;
      await ctx.client.delete(ref).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      return;
    }
    const controllerUser = await ctx.controllerUser();
    // Without its own name the webhook would record the controller as the requester of the nested
    // instances it writes: no record at all (the gate then relies on admission) is the safe side.
    if (controllerUser === undefined)
      throw new Error("the controller's own user is unknown (SelfSubjectReview failed)");
    ctx.conversion.serve(REQUESTER_PATH, (body) => reviewWriterRecord(body, controllerUser, REQUESTER_RECORD));
    const object = requesterWebhookObject({
      rgdName,
      rgdUid: rgd.metadata?.uid ?? "",
      instance,
      clientConfig: await ctx.conversion.clientConfig(REQUESTER_PATH),
      controllerUser,
    });
    await ctx.client.apply(object, { fieldManager: FIELD_MANAGERS.controller, force: true });
  } catch (error) {
    ctx.logger.warn(
      { rgd: rgdName, err: error instanceof Error ? error.message : String(error) },
      "cannot install the requester webhook; instances written meanwhile carry no requester record, so the write gate relies on admission's author check",
    );
  }
}

/**
 * The RGD whose reconcile puts a deleted requester webhook back: its owner, when this controller
 * serves that very RGD. Every controller sees every webhook; one serving other RGDs (another
 * selector, another shard of them) must not take an RGD up because its webhook went. Pure.
 */
export function rgdToRestore(
  webhook: KubeObject,
  served: (rgdName: string) => { readonly rgdUid: string } | undefined,
): string | undefined {
  const owner = webhook.metadata?.ownerReferences?.find((o) => o.kind === RGD.kind);
  if (owner === undefined) return undefined;
  return served(owner.name)?.rgdUid === owner.uid ? owner.name : undefined;
}

/**
 * A requester webhook deleted by someone else is put back by its RGD's reconcile (queued here):
 * meanwhile instance writes carry no record, which the gate treats as admission-checked only.
 */
export function watchRequesterWebhooks(
  ctx: Pick<ControllerContext, "informers" | "rgdQueue" | "served">,
): InformerLease<KubeObject> {
  const lease = ctx.informers.acquire({
    apiVersion: API_VERSION,
    kind: KIND,
    labelSelector: `${LABELS.managedBy}=kro,${LABELS.rgdId}`,
  });
  lease.informer.addHandlers({
    onDelete: (object) => {
      const name = rgdToRestore(object, (rgdName) => ctx.served.get(rgdName));
      if (name !== undefined) ctx.rgdQueue.add(name);
    },
  });
  return lease;
}
