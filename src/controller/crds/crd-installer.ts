/**
 * Installs the CRD a CEL-dialect RGD generates: create when missing, update only when our part
 * changed, refuse breaking schema changes unless the RGD allows them, never touch a CRD that
 * another RGD or a human owns, and wait until the API server serves the kind (Established).
 */
import {
  DiscoveryError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from "../../kube/index.js";
import type { CustomResourceDefinition } from "../../schema/index.js";
import { isJsonSubset } from "../context/index.js";
import { crdUpdateBody, judgeCrdUpdate, type CrdOwner } from "./crd-gate.js";

export type CrdInstallResult =
  | { readonly ok: true; readonly changed: boolean }
  | {
      readonly ok: false;
      readonly reason: "Failed" | "OwnershipConflict" | "BreakingChanges" | "NotEstablished";
      readonly message: string;
    };

/** apiVersion and kind of every CRD this controller reads or writes. */
export const CRD_TYPE = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" } as const;
export const crdRef = (name: string) => ({ ...CRD_TYPE, name });

const ESTABLISH_TIMEOUT_MS = 30_000;
const ESTABLISH_POLL_MS = 100;

export async function installCrd(
  client: KubeClient,
  generated: CustomResourceDefinition,
  owner: CrdOwner,
): Promise<CrdInstallResult> {
  let live: KubeObject | undefined;
  const ref = crdRef(generated.metadata.name);
  try {
    live = await client.get(ref);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const decision = judgeCrdUpdate(live, generated, owner);
  if (decision.kind === "refuse") return { ok: false, reason: decision.reason, message: decision.message };
  if (decision.kind === "create")
    await client.create(decision.desired as unknown as KubeObject, { fieldManager: "kro.run/controller" });
  if (decision.kind === "update" && live !== undefined)
    await client.replace(crdUpdateBody(live, decision.desired), { fieldManager: "kro.run/controller" });
  const changed = decision.kind !== "up-to-date";
  if (!(await waitEstablished(client, ref)))
    return {
      ok: false,
      reason: "NotEstablished",
      message: `CustomResourceDefinition ${generated.metadata.name} is not Established after ${ESTABLISH_TIMEOUT_MS / 1000}s`,
    };
  // The instances' watch starts next: a kind not in discovery yet makes it fail and retry with a warning.
  if (!(await waitServed(client, generated as unknown as KubeObject)))
    return {
      ok: false,
      reason: "NotEstablished",
      message: `CustomResourceDefinition ${generated.metadata.name} is Established but the API server does not serve its kind after ${ESTABLISH_TIMEOUT_MS / 1000}s`,
    };
  return { ok: true, changed };
}

export function isEstablished(crd: KubeObject): boolean {
  const conditions =
    (crd.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === "Established" && c.status === "True");
}

export async function waitEstablished(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; name: string },
): Promise<boolean> {
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
    else if (!isJsonSubset(crd.spec, live.spec))
      await client.replace({ ...live, spec: crd.spec }, { fieldManager: "kro.run/controller" });
  } catch (error) {
    // Another replica (or controller) won the race; what it wrote is the same manifest.
    if (!isAlreadyExists(error) && !isConflict(error)) throw error;
  }
  if (!(await waitEstablished(client, ref))) throw new Error(`CustomResourceDefinition ${ref.name} is not Established`);
  if (!(await waitServed(client, crd)))
    throw new Error(`CustomResourceDefinition ${ref.name} is Established but its kind is not in discovery`);
}

/** The kind a CRD defines, at each version it serves (each is its own discovery document). */
function servedKindsOf(crd: KubeObject): { apiVersion: string; kind: string }[] {
  const spec = crd.spec as
    { group?: string; names?: { kind?: string }; versions?: { name?: string; served?: boolean }[] } | undefined;
  const kind = spec?.names?.kind;
  const group = spec?.group;
  if (group === undefined || kind === undefined) return [];
  return (spec?.versions ?? [])
    .filter((v) => v.served !== false && v.name !== undefined)
    .map((v) => ({ apiVersion: `${group}/${v.name ?? ""}`, kind }));
}

/** Is the CRD's kind in the client's discovery yet, at every served version? (Another error than a miss is thrown.) */
export async function isServed(client: KubeClient, crd: KubeObject): Promise<boolean> {
  for (const served of servedKindsOf(crd)) {
    try {
      await client.resourceFor(served.apiVersion, served.kind);
    } catch (error) {
      if (error instanceof DiscoveryError) return false;
      throw error;
    }
  }
  return true;
}

/**
 * Established is not served yet: the API server's discovery documents lag the condition, and a
 * watch started in between fails ("no resource for kind") and is retried with a warning — which
 * every clean start of the controller printed for its own RGD kind.
 */
async function waitServed(client: KubeClient, crd: KubeObject): Promise<boolean> {
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  for (;;) {
    if (await isServed(client, crd)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, ESTABLISH_POLL_MS));
  }
}
