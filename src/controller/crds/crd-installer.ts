/**
 * Installs the CRD a CEL-dialect RGD generates: create when missing, update only when our part
 * changed, refuse breaking schema changes unless the RGD allows them, never touch a CRD that
 * another RGD or a human owns, and wait until the API server serves the kind (Established).
 */
import { ANNOTATIONS, LABELS, labelMatches, labelValue } from "../../api/index.js";
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import { classifyCrdUpdate, summarizeChanges, type CrdSchemaSource, type CustomResourceDefinition } from "../../schema/index.js";
import { isJsonSubset } from "../context/index.js";

export interface CrdOwner {
  readonly rgdName: string;
  readonly rgdUid: string;
  readonly kroVersion: string;
  readonly allowBreakingChanges: boolean;
}

export type CrdInstallResult =
  | { readonly ok: true; readonly changed: boolean }
  | { readonly ok: false; readonly reason: "Failed" | "OwnershipConflict" | "BreakingChanges" | "NotEstablished"; readonly message: string };

/** apiVersion and kind of every CRD this controller reads or writes. */
export const CRD_TYPE = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" } as const;
export const crdRef = (name: string) => ({ ...CRD_TYPE, name });

const ESTABLISH_TIMEOUT_MS = 30_000;
const ESTABLISH_POLL_MS = 100;

export function ownedCrd(crd: CustomResourceDefinition, owner: CrdOwner): CustomResourceDefinition {
  return {
    ...crd,
    metadata: {
      ...crd.metadata,
      labels: {
        ...crd.metadata.labels,
        [LABELS.owned]: "true",
        [LABELS.kroVersion]: owner.kroVersion,
        [LABELS.rgdId]: owner.rgdUid,
        [LABELS.rgdName]: labelValue(owner.rgdName),
      },
    },
  };
}

export function allowsBreakingChanges(rgd: KubeObject): boolean {
  return rgd.metadata?.annotations?.[ANNOTATIONS.allowBreakingChanges] === "true";
}

export async function installCrd(client: KubeClient, generated: CustomResourceDefinition, owner: CrdOwner): Promise<CrdInstallResult> {
  const desired = ownedCrd(generated, owner);
  const ref = { apiVersion: desired.apiVersion, kind: desired.kind, name: desired.metadata.name };
  let live: KubeObject | undefined;
  try {
    live = await client.get(ref);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  let changed = false;
  if (live === undefined) {
    await client.create(desired as unknown as KubeObject, { fieldManager: "kro.run/controller" });
    changed = true;
  } else {
    const ownerName = live.metadata?.labels?.[LABELS.rgdName];
    if (!labelMatches(ownerName, owner.rgdName)) {
      const who = ownerName === undefined ? "it was not created by kro" : `it belongs to ResourceGraphDefinition "${ownerName}"`;
      return { ok: false, reason: "OwnershipConflict", message: `CustomResourceDefinition ${desired.metadata.name} already exists and ${who}; refusing to modify it` };
    }
    const { breaking, nonBreaking } = classifyCrdUpdate(live as unknown as CrdSchemaSource, desired);
    // A subset check alone misses removals (a dropped field leaves the desired spec a subset of
    // the live one), so the schema diff decides too.
    const upToDate = breaking.length === 0 && nonBreaking.length === 0
      && isJsonSubset(desired.spec, live.spec) && isJsonSubset(desired.metadata.labels, live.metadata?.labels ?? {});
    if (!upToDate) {
      if (breaking.length > 0 && !owner.allowBreakingChanges) {
        return {
          ok: false,
          reason: "BreakingChanges",
          message: `cannot update CustomResourceDefinition ${desired.metadata.name}: breaking changes: ${summarizeChanges(breaking)}; set the annotation ${ANNOTATIONS.allowBreakingChanges}: "true" on the ResourceGraphDefinition to apply them`,
        };
      }
      const metadata = { ...live.metadata, labels: { ...live.metadata?.labels, ...desired.metadata.labels }, annotations: { ...live.metadata?.annotations, ...desired.metadata.annotations } };
      await client.replace({ ...live, metadata, spec: desired.spec }, { fieldManager: "kro.run/controller" });
      changed = true;
    }
  }
  const established = await waitEstablished(client, ref);
  return established ? { ok: true, changed } : { ok: false, reason: "NotEstablished", message: `CustomResourceDefinition ${desired.metadata.name} is not Established after ${ESTABLISH_TIMEOUT_MS / 1000}s` };
}

export function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === "Established" && c.status === "True");
}

export async function waitEstablished(client: KubeClient, ref: { apiVersion: string; kind: string; name: string }): Promise<boolean> {
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  for (;;) {
    if (isEstablished(await client.get(ref))) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, ESTABLISH_POLL_MS));
  }
}

/**
 * The controller's own CRDs (ResourceGraphDefinition, GraphRevision): installed (or upgraded) at
 * startup so `kro controller` works on an empty cluster, the way an install manifest would.
 */
export async function ensureRgdCrd(client: KubeClient, crd: KubeObject): Promise<void> {
  const ref = crdRef(crd.metadata?.name ?? "");
  let live: KubeObject | undefined;
  try {
    live = await client.get(ref);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    if (live === undefined) await client.create(crd, { fieldManager: "kro.run/controller" });
    else if (!isJsonSubset(crd.spec, live.spec)) await client.replace({ ...live, spec: crd.spec }, { fieldManager: "kro.run/controller" });
  } catch (error) {
    // Another replica (or controller) won the race; what it wrote is the same manifest.
    if (!isAlreadyExists(error) && !isConflict(error)) throw error;
  }
  if (!(await waitEstablished(client, ref))) throw new Error(`CustomResourceDefinition ${ref.name} is not Established`);
}
