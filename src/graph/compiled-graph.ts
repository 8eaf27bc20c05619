/**
 * What compiling an RGD produces: one immutable graph that the runtime evaluates per instance,
 * the controller installs (its CRD), and the CLI prints. Expressions stay as source text here;
 * the runtime compiles them once per graph with the same CEL environment.
 */
import type { FoundField, OpenApiSchema } from "../expr/index.js";
import type { CustomResourceDefinition } from "../schema/index.js";
import type { HelmContext } from "./helm/index.js";
import type { ApiVersions } from "./versions/index.js";
import type { RolloutPolicy } from "./rollout-policy.js";

export const NODE_TYPES = ["resource", "collection", "external", "externalCollection"] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface ForEachDimension {
  readonly name: string;
  readonly expression: string;
}

/**
 * One `propagateWhen` entry of a collection (KREP-006), in the forms kro-ts supports; `u` below is
 * the number of the collection's items that are updated, an item's index its position in the
 * collection. `linear`: `linearlyUpdated(item, items, batch)`, index < (u / batch + 1) * batch.
 * `exponential`: `exponentiallyUpdated(item, items)`, index < 2^ceil(log2(u + 1)).
 * `updatedReady`: `items.all(x, !x.updated() || x.ready())`, every updated item is ready.
 */
export type PropagationRule =
  | { readonly kind: "linear"; readonly batch: number; readonly text: string }
  | { readonly kind: "exponential"; readonly text: string }
  | { readonly kind: "updatedReady"; readonly text: string };

export interface CompiledNode {
  readonly id: string;
  /** Position in `spec.resources` (author order). */
  readonly index: number;
  readonly type: NodeType;
  readonly apiVersion: string;
  readonly kind: string;
  /** Undefined when the kind's scope is unknown (no schema found). */
  readonly namespaced: boolean | undefined;
  /** The template (resources) or the externalRef object (externals), as written. */
  readonly template: unknown;
  /** Every `${…}` field of the template, with its path inside the template. */
  readonly fields: readonly FoundField[];
  readonly includeWhen: readonly string[];
  readonly readyWhen: readonly string[];
  readonly forEach: readonly ForEachDimension[];
  /** A collection's `propagateWhen`: which items may take their new desired state; absent, all at once. */
  readonly propagateWhen?: readonly PropagationRule[];
  /** Set when the resource names a target cluster: the clusters its instances may place it in (cluster-target.ts). */
  readonly clusters?: readonly string[];
  /** How observed objects of this kind convert to CEL values (timestamps, durations, bytes, doubles):
   * the typed skeleton of its schema, absent when there is nothing beyond plain JSON (expr valueConversionSchema). */
  readonly valueSchema?: OpenApiSchema;
  /** Resource ids this node reads (template, includeWhen, forEach), in author order. */
  readonly dependencies: readonly string[];
  /** Apply-order wave (kro §5.7); deletion goes from the highest wave down. */
  readonly wave: number;
  /**
   * Template dialect only. There `template` holds the body's Go template text, `includeWhen`
   * the `condition` template (zero or one entry), `readyWhen` the readyWhen templates, and
   * `fields`/`forEach` stay empty.
   */
  readonly templateSource?: TemplateNodeSource;
}

/** What the template dialect's runtime needs of one child beyond the common node fields. */
export interface TemplateNodeSource {
  readonly nameTemplate: string;
  /** Ids from `dependsOn`, as written (also part of `dependencies`). */
  readonly dependsOn: readonly string[];
  /** Ids read as `.children.<id>` by any of the child's templates (also part of `dependencies`). */
  readonly childReferences: readonly string[];
  /**
   * A `manifests` child (node type "collection"): the spec.helm template it renders, and every
   * kind (`group/Kind`) some child of that same template owns — a rendered object of any other
   * kind is an error, never silently dropped.
   */
  readonly manifests?: { readonly template: string; readonly templateKinds: readonly string[] };
}

export interface InstanceApi {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: "Namespaced" | "Cluster";
}

export interface StatusField {
  /** Path under `status`, e.g. ["endpoints", "url"]. */
  readonly path: readonly string[];
  readonly text: string;
}

/** The parent kind of a template-dialect RGD: the user's CRD, so plural and scope are not known offline. */
export interface InstanceKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Fields both dialects share; switch on `dialect` for the rest. */
interface GraphBase {
  readonly name: string;
  /** In author order; see `topologicalOrder` for creation order. */
  readonly nodes: readonly CompiledNode[];
  readonly topologicalOrder: readonly string[];
  /** CEL status fields (template graphs: empty; see `statusMappings`). */
  readonly status: readonly StatusField[];
  /** `${…}` author-condition expressions from `spec.schema.status.conditions` (template graphs: empty), with the
   * bare keys of `runtime.newCondition({type: …})` quoted (kro's parse-time macro) so plain CEL evaluates them. */
  readonly conditions: readonly string[];
  /** `spec.rollout`: how a new revision reaches the instances; absent, all at once (docs/design/rollouts.md). */
  readonly rollout?: RolloutPolicy;
}

/** CEL dialect (`spec.schema` + `spec.resources`): kro generates and owns the instance CRD. */
export interface CelCompiledGraph extends GraphBase {
  readonly dialect: "cel";
  readonly instance: InstanceApi;
  readonly crd: CustomResourceDefinition;
  /** `spec.schema.versions`: the other versions of the API and their conversions; absent with one version. */
  readonly versions?: ApiVersions;
}

/**
 * Template dialect (`spec.resourceKind` + `spec.childResources`): the instance CRD is the
 * user's and must already exist. The controller looks it up (plural, scope, status storage).
 */
export interface TemplateCompiledGraph extends GraphBase {
  readonly dialect: "template";
  readonly instance: InstanceKind;
  readonly crd?: undefined;
  readonly statusMappings: readonly StatusMapping[];
  /** `spec.helm`: the chart context of `manifests` children. */
  readonly helm?: HelmContext;
}

export type CompiledGraph = CelCompiledGraph | TemplateCompiledGraph;

/** One `spec.statusMappings[]` entry, validated. */
export interface StatusMapping {
  /** Position in `spec.statusMappings`. */
  readonly index: number;
  readonly childResource: {
    readonly apiVersion?: string;
    readonly kind: string;
    /** Go template for the child's metadata.name; absent when the kind alone selects one child. */
    readonly name?: string;
  };
  /** Ids of the children the selector can match (same kind, same apiVersion when given), author order. */
  readonly candidates: readonly string[];
  readonly conditions: readonly ConditionMapping[];
  readonly fieldMappings: readonly FieldMapping[];
}

export interface ConditionMapping {
  /** The child's condition type. */
  readonly type: string;
  /** The condition type written on the parent. */
  readonly mappedType: string;
}

/** A dot path step: a map key or a list index (`status.loadBalancer.ingress[0].ip`). */
export type PathStep = string | number;

export interface FieldMapping {
  readonly child: readonly PathStep[];
  /** Path under the parent's `status` (the leading `status.` removed). */
  readonly parent: readonly string[];
  /** As written, for messages. */
  readonly childText: string;
  readonly parentText: string;
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
