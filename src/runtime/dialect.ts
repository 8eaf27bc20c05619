/**
 * The seam between the dialect-neutral runtime core (ordering, dependency gating, exclusion
 * spreading, forEach products, labels, prune/delete plans, built-in conditions and state) and the
 * two expression languages: CEL (`${…}`, src/runtime/cel/) and Go templates (seed dialect,
 * src/runtime/template-dialect/). The core calls these per node, in topological order, and only
 * after every dependency of the node is observed and ready.
 */
import type { CostOptions } from "../expr/index.js";
import type { CompiledGraph, CompiledNode } from "../graph/index.js";
import type { KubeJson, PendingReason } from "./types.js";
import type { HelmRenderEnv } from "./types.js";

/** A result that may be waiting on cluster data (pending) or broken for good (error). */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly pending: PendingReason; readonly error?: undefined }
  | { readonly ok: false; readonly error: string; readonly pending?: undefined };

export interface EvaluationScope {
  /** The instance as read from the cluster (status included; dialects decide what they expose). */
  readonly instance: KubeJson;
  /** Observed objects of the nodes resolved so far this pass, by node id (collections: all items). */
  readonly observed: ReadonlyMap<string, readonly KubeJson[]>;
  /** Node ids known to be excluded this pass. */
  readonly excluded: ReadonlySet<string>;
  /** CEL cost limits: the per-expression limit and one budget shared by the whole pass. */
  readonly cost?: CostOptions;
  /** Charts (spec.helm) on a cluster: its capabilities and the lookup port (absent offline). */
  readonly helm?: HelmRenderEnv;
  /** The pass's wall-clock limit (RuntimeOptions.passDeadline), for template renders. */
  readonly deadline?: { readonly now: () => number; readonly at: number; readonly budgetMs: number };
}

/** Author-visible status computed by the dialect (built-ins are added by the core). */
export interface ProjectedStatus {
  /** User status fields (CEL: spec.schema.status; template: fieldMappings), only fully resolved ones. */
  readonly fields: KubeJson;
  /** Author or mapped conditions (type, status, reason, message); the core stamps times and generation. */
  readonly conditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason?: string;
    readonly message?: string;
  }[];
  /** When true, `conditions` replace the built-ins on .status.conditions (CEL author conditions); false merges over them (template mappings). */
  readonly replacesBuiltins: boolean;
  readonly errors: readonly string[];
  /**
   * Condition types whose expressions are pending this pass (known from a literal `type`): the
   * core keeps the previously written condition of those types instead of dropping it (§6.11).
   */
  readonly pendingConditionTypes?: readonly string[];
  /** User status fields left out because their data is pending (named by `kro render`). */
  readonly pendingFields?: readonly {
    readonly path: string;
    readonly message: string;
    readonly missingPath?: string;
  }[];
}

export interface DialectEvaluator {
  /** includeWhen (CEL) / condition (template): false excludes the node and its dependents. */
  isIncluded(node: CompiledNode, scope: EvaluationScope): Outcome<boolean>;
  /**
   * The desired objects of a node before the core adds kro's labels/annotations and defaults the
   * namespace: one for a resource, the items for a collection (forEach), the resolved reference
   * (apiVersion, kind, metadata.name/namespace/selector) for an external.
   */
  renderDesired(node: CompiledNode, scope: EvaluationScope): Outcome<readonly KubeJson[]>;
  /**
   * Objects a node keeps as they are this pass: never applied, never pruned, not awaited (a Helm
   * install hook after the install, template-dialect/hook-runs.ts). Identity fields suffice.
   */
  retained?(node: CompiledNode, scope: EvaluationScope): readonly KubeJson[];
  /** readyWhen on one observed object (collections call it per item). No readyWhen → ready. */
  isReady(node: CompiledNode, observed: KubeJson, scope: EvaluationScope): Outcome<boolean>;
  projectStatus(graph: CompiledGraph, scope: EvaluationScope): ProjectedStatus;
}
