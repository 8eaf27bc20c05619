/**
 * The breaking-change gate of an RGD's generated CRD, as a pure decision: given the CRD in the
 * cluster (or none) and the one the RGD now implies, create, leave alone, update, or refuse —
 * and why. installCrd (crd-installer.ts) acts on it; `kro diff` reports it without writing.
 */
import { ANNOTATIONS, LABELS, labelMatches, labelValue } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import {
  classifyCrdUpdate,
  summarizeChanges,
  type CrdSchemaSource,
  type CustomResourceDefinition,
  type SchemaChange,
} from "../../schema/index.js";
import { isJsonSubset } from "../context/index.js";

export interface CrdOwner {
  readonly rgdName: string;
  readonly rgdUid: string;
  readonly kroVersion: string;
  readonly allowBreakingChanges: boolean;
}

export type CrdDecision =
  | { readonly kind: "create"; readonly desired: CustomResourceDefinition }
  | { readonly kind: "up-to-date" }
  | {
      readonly kind: "update";
      readonly desired: CustomResourceDefinition;
      readonly breaking: readonly SchemaChange[];
      readonly nonBreaking: readonly SchemaChange[];
    }
  | {
      readonly kind: "refuse";
      readonly reason: "OwnershipConflict" | "BreakingChanges";
      readonly message: string;
      readonly breaking: readonly SchemaChange[];
      readonly nonBreaking: readonly SchemaChange[];
    };

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

export function judgeCrdUpdate(
  live: KubeObject | undefined,
  generated: CustomResourceDefinition,
  owner: CrdOwner,
): CrdDecision {
  const desired = ownedCrd(generated, owner);
  if (live === undefined) return { kind: "create", desired };
  const ownerName = live.metadata?.labels?.[LABELS.rgdName];
  if (!labelMatches(ownerName, owner.rgdName)) {
    const who =
      ownerName === undefined ? "it was not created by kro" : `it belongs to ResourceGraphDefinition "${ownerName}"`;
    return {
      kind: "refuse",
      reason: "OwnershipConflict",
      message: `CustomResourceDefinition ${desired.metadata.name} already exists and ${who}; refusing to modify it`,
      breaking: [],
      nonBreaking: [],
    };
  }
  const { breaking, nonBreaking } = classifyCrdUpdate(live as unknown as CrdSchemaSource, desired);
  // A subset check alone misses removals (a dropped field leaves the desired spec a subset of
  // the live one), so the schema diff decides too.
  const upToDate =
    breaking.length === 0 &&
    nonBreaking.length === 0 &&
    isJsonSubset(desired.spec, live.spec) &&
    isJsonSubset(desired.metadata.labels, live.metadata?.labels ?? {});
  if (upToDate) return { kind: "up-to-date" };
  if (breaking.length > 0 && !owner.allowBreakingChanges) {
    return {
      kind: "refuse",
      reason: "BreakingChanges",
      message: `cannot update CustomResourceDefinition ${desired.metadata.name}: breaking changes: ${summarizeChanges(breaking)}; set the annotation ${ANNOTATIONS.allowBreakingChanges}: "true" on the ResourceGraphDefinition to apply them`,
      breaking,
      nonBreaking,
    };
  }
  return { kind: "update", desired, breaking, nonBreaking };
}

/** The PUT body of an allowed update: the live object with our labels and annotations merged and the new spec. */
export function crdUpdateBody(live: KubeObject, desired: CustomResourceDefinition): KubeObject {
  const metadata = {
    ...live.metadata,
    labels: { ...live.metadata?.labels, ...desired.metadata.labels },
    annotations: { ...live.metadata?.annotations, ...desired.metadata.annotations },
  };
  return { ...live, metadata, spec: desired.spec };
}
