/**
 * The GraphRevision wire type and its CRD, compatible with kro v0.9's
 * `graphrevisions.internal.kro.run`: same group, version, kind, scope, short name, printer columns,
 * selectable field and immutable spec. One difference, on purpose: the snapshot's spec uses the
 * kro-ts RGD spec schema (both dialects), a superset of kro's, so template-dialect snapshots are
 * not pruned by the API server.
 */
import { GRAPH_REVISION, INTERNAL_KRO_GROUP, KRO_VERSION } from "./constants.js";
import {
  CONDITION_SCHEMA,
  RESOURCES_INFO_SCHEMA,
  RGD_SPEC_SCHEMA,
  type CrdManifest,
  type JSONSchemaProps,
} from "./rgd-crd.js";

export interface GraphRevisionSnapshot {
  /** Name of the source RGD: revisions belong to an RGD by name, as in kro (a recreated RGD adopts them). */
  readonly name: string;
  /** metadata.generation of the RGD when the revision was issued (informational). */
  readonly generation: number;
  /** The RGD spec that compiled, copied verbatim. */
  readonly spec: Record<string, unknown>;
}

export interface GraphRevision {
  readonly apiVersion: typeof GRAPH_REVISION.apiVersion;
  readonly kind: typeof GRAPH_REVISION.kind;
  readonly metadata: {
    readonly name: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly creationTimestamp?: string;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
    readonly ownerReferences?: readonly OwnerReference[];
  };
  readonly spec: { readonly revision: number; readonly snapshot: GraphRevisionSnapshot };
  readonly status?: unknown;
}

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

const int64 = (description: string, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: "integer",
  format: "int64",
  description,
  ...extra,
});

const spec: JSONSchemaProps = {
  type: "object",
  description: "An immutable snapshot of the source ResourceGraphDefinition.",
  required: ["revision", "snapshot"],
  "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "spec is immutable" }],
  properties: {
    revision: int64("Revision number, monotonic per ResourceGraphDefinition name.", { minimum: 1 }),
    snapshot: {
      type: "object",
      description: "Identity and spec of the source ResourceGraphDefinition when this revision was issued.",
      required: ["name", "generation", "spec"],
      properties: {
        name: {
          type: "string",
          description:
            "Name of the source ResourceGraphDefinition (the identity revisions are grouped and adopted by).",
        },
        generation: int64(
          "metadata.generation of the source ResourceGraphDefinition when this revision was issued. Informational only.",
        ),
        spec: { ...RGD_SPEC_SCHEMA, description: "Verbatim copy of the source ResourceGraphDefinition spec." },
      },
    },
  },
};

const status: JSONSchemaProps = {
  type: "object",
  description: "What the controller observed when it compiled this revision.",
  properties: {
    topologicalOrder: { type: "array", description: "Resource ids in creation order.", items: { type: "string" } },
    conditions: { type: "array", description: "GraphVerified and the root Ready.", items: CONDITION_SCHEMA },
    resources: RESOURCES_INFO_SCHEMA,
  },
};

export function graphRevisionCustomResourceDefinition(): CrdManifest {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: GRAPH_REVISION.crdName },
    spec: {
      group: INTERNAL_KRO_GROUP,
      scope: "Cluster",
      names: {
        kind: GRAPH_REVISION.kind,
        listKind: GRAPH_REVISION.listKind,
        plural: GRAPH_REVISION.plural,
        singular: GRAPH_REVISION.singular,
        shortNames: [GRAPH_REVISION.shortName],
      },
      versions: [
        {
          name: KRO_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "RGD", type: "string", priority: 1, jsonPath: ".spec.snapshot.name" },
            { name: "REVISION", type: "integer", jsonPath: ".spec.revision" },
            { name: "HASH", type: "string", priority: 1, jsonPath: ".metadata.labels.kro\\.run/graph-revision-hash" },
            { name: "READY", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          selectableFields: [{ jsonPath: ".spec.snapshot.name" }],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: "GraphRevision is an immutable snapshot of a ResourceGraphDefinition revision.",
              properties: {
                apiVersion: { type: "string", description: "APIVersion of this object." },
                kind: { type: "string", description: "Kind of this object." },
                metadata: { type: "object" },
                spec,
                status,
              },
            },
          },
        },
      ],
    },
  };
}
