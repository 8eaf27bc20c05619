/**
 * Wire types of a ResourceGraphDefinition, both dialects. They describe what a user may write;
 * everything is optional or `unknown` where users can write anything, because validation (with
 * paths) is the compiler's job, not the type system's.
 */
export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly resourceVersion?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** CEL dialect: `spec.schema`. */
export interface RgdSchema {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly group?: string;
  readonly scope?: "Namespaced" | "Cluster";
  readonly spec?: unknown;
  readonly types?: unknown;
  readonly status?: unknown;
  readonly additionalPrinterColumns?: readonly unknown[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly metadata?: { readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
}

export interface ExternalRef {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly selector?: unknown;
  };
}

/** CEL dialect: one entry of `spec.resources`. */
export interface RgdResource {
  readonly id?: string;
  readonly template?: unknown;
  readonly externalRef?: ExternalRef;
  readonly readyWhen?: readonly unknown[];
  readonly includeWhen?: readonly unknown[];
  readonly forEach?: readonly unknown[];
  /** KREP-006: when each item of a forEach collection may take its new desired state (docs/design/rollouts.md). */
  readonly propagateWhen?: readonly unknown[];
  /** kro-ts: target cluster (docs/design/clusters.md). */
  readonly cluster?: unknown;
  readonly clusters?: readonly unknown[];
}

/** Template dialect: `spec.resourceKind`. */
export interface ResourceKindRef {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
}

/** Template dialect: one entry of `spec.childResources`. */
export interface ChildResource {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly id?: string;
  readonly nameTemplate?: string;
  readonly condition?: string;
  readonly dependsOn?: readonly string[];
  readonly readyWhen?: readonly string[];
  readonly template?: string;
  /** Template dialect with spec.helm: the chart template whose objects of this kind the child owns. */
  readonly manifests?: string;
}

export interface StatusMapping {
  readonly childResource?: { readonly apiVersion?: string; readonly kind?: string; readonly name?: string };
  readonly conditions?: readonly { readonly type?: string; readonly mapping?: { readonly type?: string } }[];
  readonly fieldMappings?: readonly { readonly child?: string; readonly parent?: string }[];
}

/** kro-ts: one wave of `spec.rollout.waves` (at most one of selector, namespaces, percent; none: every instance left). */
export interface RolloutWaveSpec {
  readonly name?: string;
  readonly selector?: {
    readonly matchLabels?: Readonly<Record<string, string>>;
    readonly matchExpressions?: readonly {
      readonly key?: string;
      readonly operator?: string;
      readonly values?: readonly string[];
    }[];
  };
  readonly namespaces?: readonly string[];
  /** Cumulative: the wave ends when this share of all instances runs the new revision. */
  readonly percent?: number;
}

/**
 * kro-ts: how a new GraphRevision reaches the instances (docs/design/rollouts.md). Absent: every
 * instance takes it at once, as in kro. Not part of a revision's identity.
 */
export interface RolloutSpec {
  readonly waves?: readonly RolloutWaveSpec[];
  /** An integer, or a percentage of all instances as "20%". */
  readonly maxUpdating?: number | string;
  readonly gate?: { readonly readyWithin?: string; readonly healthyWhen?: readonly string[] };
  readonly pauseBetweenWaves?: string;
  readonly onFailure?: "Halt" | "Rollback";
  readonly pinning?: { readonly maxRevisionsBack?: number };
}

export interface RgdSpec {
  readonly schema?: RgdSchema;
  readonly resources?: readonly RgdResource[];
  readonly resourceKind?: ResourceKindRef;
  readonly childResources?: readonly ChildResource[];
  readonly statusMappings?: readonly StatusMapping[];
  /** Template dialect: the Helm chart context of manifests children (see docs/design/template-dialect.md §9). */
  readonly helm?: Readonly<Record<string, unknown>>;
  readonly rollout?: RolloutSpec;
}

export interface ResourceGraphDefinition {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec: RgdSpec;
  readonly status?: unknown;
}

export const DIALECTS = ["cel", "template"] as const;
export type Dialect = (typeof DIALECTS)[number];
