/**
 * The template dialect attaches to the user's CRD instead of generating one
 * (docs/reference/seed-dialect.md §2). Pure checks the controller and `kro generate crd` share:
 * does this CRD define the RGD's resourceKind, which plural and scope does it give the instances,
 * and what status storage must be added (status schema + status subresource) for statusMappings to
 * be visible.
 */
import { GRAPH_REVISION_STATUS } from "../api/index.js";
import type { InstanceKind } from "./compiled-graph.js";
import { isRecord } from "./is-record.js";
import { REVISION_STATUS_SCHEMA } from "./rollout-policy.js";

export type AttachResult =
  | { readonly ok: false; readonly message: string }
  | {
      readonly ok: true;
      readonly crdName: string;
      readonly plural: string;
      readonly scope: "Namespaced" | "Cluster";
      /** Human-readable additions, e.g. "spec.versions[v1].subresources.status"; empty when status is stored already. */
      readonly additions: readonly string[];
      /**
       * Server-side apply configuration adding the missing status storage, or undefined when
       * nothing is missing. `spec.versions` is an atomic list in the CRD schema, so it must be
       * sent whole: every version is copied unchanged except for the added status parts.
       */
      readonly apply?: Record<string, unknown>;
    };

const STATUS_SCHEMA = { type: "object", "x-kubernetes-preserve-unknown-fields": true } as const;

/** True when `crd` is a CustomResourceDefinition for the group and kind (any version). */
export function crdDefines(crd: unknown, instance: InstanceKind): boolean {
  if (!isRecord(crd) || crd.kind !== "CustomResourceDefinition" || !isRecord(crd.spec)) return false;
  const names = crd.spec.names;
  return crd.spec.group === instance.group && isRecord(names) && names.kind === instance.kind;
}

function versionAdditions(
  version: Record<string, unknown>,
  revisionRecord: boolean,
): { copy: Record<string, unknown>; added: string[] } {
  const name = String(version.name);
  const added: string[] = [];
  const schema = isRecord(version.schema) ? version.schema : {};
  const root = isRecord(schema.openAPIV3Schema) ? schema.openAPIV3Schema : { type: "object" };
  const properties = isRecord(root.properties) ? root.properties : {};
  // A root that keeps unknown fields stores status already; otherwise status needs a schema.
  const storesStatus = properties.status !== undefined || root["x-kubernetes-preserve-unknown-fields"] === true;
  const subresources = isRecord(version.subresources) ? version.subresources : {};
  let copy = version;
  if (!storesStatus) {
    added.push(`spec.versions[${name}].schema.openAPIV3Schema.properties.status`);
    copy = {
      ...copy,
      schema: { ...schema, openAPIV3Schema: { ...root, properties: { ...properties, status: STATUS_SCHEMA } } },
    };
  }
  // Under a rollout each instance records its revision in status.graphRevision: a status schema
  // that declares its fields and keeps no others would prune it, and the rollout would lose track.
  const status = isRecord(properties.status) ? properties.status : undefined;
  const statusProperties = isRecord(status?.properties) ? status.properties : {};
  if (
    revisionRecord &&
    status !== undefined &&
    status["x-kubernetes-preserve-unknown-fields"] !== true &&
    statusProperties[GRAPH_REVISION_STATUS.field] === undefined
  ) {
    added.push(
      `spec.versions[${name}].schema.openAPIV3Schema.properties.status.properties.${GRAPH_REVISION_STATUS.field}`,
    );
    const withRecord = {
      ...status,
      properties: { ...statusProperties, [GRAPH_REVISION_STATUS.field]: REVISION_STATUS_SCHEMA },
    };
    copy = {
      ...copy,
      schema: { ...schema, openAPIV3Schema: { ...root, properties: { ...properties, status: withRecord } } },
    };
  }
  if (subresources.status === undefined) {
    added.push(`spec.versions[${name}].subresources.status`);
    copy = { ...copy, subresources: { ...subresources, status: {} } };
  }
  return { copy, added };
}

/** `revisionRecord`: the RGD has spec.rollout, so the status must keep `status.graphRevision`. */
export function attachToCrd(crd: unknown, instance: InstanceKind, revisionRecord = false): AttachResult {
  const label = `${instance.kind}.${instance.group}`;
  if (!crdDefines(crd, instance) || !isRecord(crd) || !isRecord(crd.spec))
    return { ok: false, message: `this is not a CustomResourceDefinition for ${label}` };
  const metadata = isRecord(crd.metadata) ? crd.metadata : {};
  const crdName = typeof metadata.name === "string" ? metadata.name : "";
  const names = isRecord(crd.spec.names) ? crd.spec.names : {};
  const versions = Array.isArray(crd.spec.versions) ? crd.spec.versions.filter(isRecord) : [];
  const target = versions.find((v) => v.name === instance.version);
  if (target === undefined) {
    return {
      ok: false,
      message: `CRD ${crdName} has no version ${instance.version} (it has ${versions.map((v) => String(v.name)).join(", ") || "none"})`,
    };
  }
  if (target.served === false)
    return { ok: false, message: `CRD ${crdName} does not serve version ${instance.version}` };
  const plural = typeof names.plural === "string" ? names.plural : "";
  const scope = crd.spec.scope === "Cluster" ? "Cluster" : "Namespaced";
  // Every version gets storage: status written through one version is stored (and pruned) by
  // the storage version's schema.
  const planned = versions.map((v) => versionAdditions(v, revisionRecord));
  const additions = planned.flatMap((p) => p.added);
  if (additions.length === 0) return { ok: true, crdName, plural, scope, additions };
  const apply = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName },
    spec: { versions: planned.map((p) => p.copy) },
  };
  return { ok: true, crdName, plural, scope, additions, apply };
}
