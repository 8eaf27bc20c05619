/**
 * What compiling an RGD produces: one immutable graph that the runtime evaluates per instance,
 * the controller installs (its CRD), and the CLI prints. Expressions stay as source text here;
 * the runtime compiles them once per graph with the same CEL environment.
 */
import type { FoundField } from "../expr/index.js";
import type { CustomResourceDefinition } from "../schema/index.js";

export const NODE_TYPES = ["resource", "collection", "external", "externalCollection"] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface ForEachDimension {
  readonly name: string;
  readonly expression: string;
}

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
  /** Resource ids this node reads (template, includeWhen, forEach), in author order. */
  readonly dependencies: readonly string[];
  /** Apply-order wave (kro §5.7); deletion goes from the highest wave down. */
  readonly wave: number;
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

export interface CompiledGraph {
  readonly dialect: "cel";
  readonly name: string;
  readonly instance: InstanceApi;
  readonly crd: CustomResourceDefinition;
  /** In author order; see `topologicalOrder` for creation order. */
  readonly nodes: readonly CompiledNode[];
  readonly topologicalOrder: readonly string[];
  readonly status: readonly StatusField[];
  /** `${…}` author-condition expressions from `spec.schema.status.conditions`, with the bare keys of
   * `runtime.newCondition({type: …})` quoted (kro's parse-time macro) so plain CEL evaluates them. */
  readonly conditions: readonly string[];
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
