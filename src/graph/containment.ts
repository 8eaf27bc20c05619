/**
 * Where a child lands, as far as the RGD text tells (docs/design/authorization.md). Position
 * decides nothing at runtime — the instance-author check does, at the evaluated
 * scope — but a child whose namespace instance data chooses, or a cluster-scoped child of a
 * namespaced instance, is still worth a lint warning: such an RGD is usable only by authors who
 * hold those rights themselves (or with an exemption). The RGD's annotations (author check,
 * exemptions; the old containment opt-ins, which now silence the warnings) are parsed here too.
 */
import { ANNOTATIONS, AUTHOR_CHECK } from "../api/index.js";
import { warning, type Issue, type IssuePath } from "../diag/index.js";
import type { CompiledNode } from "./compiled-graph.js";
import { isRecord } from "./is-record.js";

/** Where a child's `metadata.namespace` comes from, as far as the RGD text tells. */
export type NamespaceSource =
  /** Absent, empty, or `${schema.metadata.namespace}`: the instance's own namespace. */
  | { readonly kind: "instance" }
  /** A literal the RGD author wrote. */
  | { readonly kind: "constant"; readonly value: string }
  /** Exactly `${schema.spec.a.b}`: a field of the instance spec (the author policy can read it at admission). */
  | { readonly kind: "spec"; readonly path: readonly string[] }
  /** Any other expression (or a Go template): only the evaluated value is known. */
  | { readonly kind: "dynamic"; readonly text: string };

/** The RGD author's choices, from the RGD's annotations. */
export interface ContainmentPolicy {
  readonly allowCrossNamespace: boolean;
  readonly allowClusterScoped: boolean;
  /** False when the RGD sets kro.run/author-check: Disabled. */
  readonly authorCheck: boolean;
  /** Resource ids instance authors need no permission for (platform-provided children). */
  readonly authorCheckExempt: readonly string[];
}

export const DEFAULT_CONTAINMENT: ContainmentPolicy = {
  allowCrossNamespace: false,
  allowClusterScoped: false,
  authorCheck: true,
  authorCheckExempt: [],
};

export function containmentPolicyOf(rgd: unknown): ContainmentPolicy {
  const metadata = isRecord(rgd) && isRecord(rgd.metadata) ? rgd.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const text = (key: string) => (typeof annotations[key] === "string" ? annotations[key].trim() : "");
  return {
    allowCrossNamespace: text(ANNOTATIONS.allowCrossNamespace).toLowerCase() === "true",
    allowClusterScoped: text(ANNOTATIONS.allowClusterScoped).toLowerCase() === "true",
    authorCheck: text(ANNOTATIONS.authorCheck).toLowerCase() !== AUTHOR_CHECK.disabled.toLowerCase(),
    authorCheckExempt: text(ANNOTATIONS.authorCheckExempt)
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  };
}

/** Whether the RGD lets instance authors cause more than their own rights allow. */
export function delegates(policy: ContainmentPolicy): boolean {
  return !policy.authorCheck || policy.authorCheckExempt.length > 0;
}

/** Who the RGD says wrote its delegation (ANNOTATIONS.delegatedBy / delegatedGroups); undefined: nobody recorded. */
export function delegationAuthorOf(
  rgd: unknown,
): { readonly user: string; readonly groups: readonly string[] } | undefined {
  return recordedUser(rgd, ANNOTATIONS.delegatedBy, ANNOTATIONS.delegatedGroups);
}

/** Who the RGD records as its author (ANNOTATIONS.authoredBy / authoredGroups); undefined: nobody recorded. */
export function rgdAuthorOf(rgd: unknown): { readonly user: string; readonly groups: readonly string[] } | undefined {
  return recordedUser(rgd, ANNOTATIONS.authoredBy, ANNOTATIONS.authoredGroups);
}

function recordedUser(
  rgd: unknown,
  userKey: string,
  groupsKey: string,
): { readonly user: string; readonly groups: readonly string[] } | undefined {
  const metadata = isRecord(rgd) && isRecord(rgd.metadata) ? rgd.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const user = annotations[userKey];
  if (typeof user !== "string" || user === "") return undefined;
  const groups = annotations[groupsKey];
  return { user, groups: typeof groups === "string" ? groups.split(",").filter((g) => g !== "") : [] };
}

const SPEC_PATH = /^\s*schema\.spec((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*$/;
const INSTANCE_NAMESPACE = /^\s*schema\.metadata\.namespace\s*$/;

/** Classifies a `metadata.namespace` (or `metadata.name`) value as written in a CEL-dialect template. */
export function classifyMetadataValue(value: unknown): NamespaceSource {
  if (value === undefined || value === null || value === "") return { kind: "instance" };
  if (typeof value !== "string") return { kind: "dynamic", text: JSON.stringify(value) };
  if (!value.includes("${")) return { kind: "constant", value };
  const standalone = /^\$\{([^{}]*)\}$/.exec(value);
  const inner = standalone?.[1];
  if (inner !== undefined && INSTANCE_NAMESPACE.test(inner)) return { kind: "instance" };
  const spec = inner === undefined ? null : SPEC_PATH.exec(inner);
  if (spec?.[1] !== undefined) return { kind: "spec", path: spec[1].slice(1).split(".") };
  return { kind: "dynamic", text: value };
}

/** The namespace source of one node; Go-template children are only known once rendered. */
export function namespaceSource(node: Pick<CompiledNode, "template" | "templateSource">): NamespaceSource {
  if (node.templateSource !== undefined) {
    return typeof node.template === "string" && /\bnamespace\s*:/.test(node.template)
      ? { kind: "dynamic", text: "(Go template)" }
      : { kind: "instance" };
  }
  const metadata = isRecord(node.template) && isRecord(node.template.metadata) ? node.template.metadata : {};
  return classifyMetadataValue(metadata.namespace);
}

/** The node's constant namespace, when the RGD author wrote one. */
export function constantNamespace(node: Pick<CompiledNode, "template" | "templateSource">): string | undefined {
  const source = namespaceSource(node);
  return source.kind === "constant" ? source.value : undefined;
}

interface ContainmentNode {
  readonly id: string;
  readonly type: CompiledNode["type"];
  readonly namespaced: boolean | undefined;
  readonly template: unknown;
  readonly path: IssuePath;
}

/**
 * Compile-time report for a namespaced instance: children written outside the instance's
 * namespace by instance data, and cluster-scoped children, unless the RGD opted in. Warnings,
 * not errors: kro accepts these RGDs, and the author check decides per instance author.
 */
export function containmentWarnings(
  nodes: readonly ContainmentNode[],
  instanceScope: "Namespaced" | "Cluster",
  policy: ContainmentPolicy,
): Issue[] {
  if (instanceScope !== "Namespaced") return [];
  const issues: Issue[] = [];
  for (const node of nodes) {
    if (node.type === "external" || node.type === "externalCollection") continue;
    const body: IssuePath = [...node.path, "template"];
    if (node.namespaced === false) {
      if (!policy.allowClusterScoped) {
        issues.push(
          warning(
            "containment.cluster-scoped-child",
            [...body, "kind"],
            `resource "${node.id}" is cluster-scoped, but instances are namespaced: only instance authors who may write it cluster-wide themselves are admitted (or exempt it with ${ANNOTATIONS.authorCheckExempt}; ${ANNOTATIONS.allowClusterScoped}: "true" silences this warning)`,
          ),
        );
      }
      continue;
    }
    const source = namespaceSource(node);
    if ((source.kind === "spec" || source.kind === "dynamic") && !policy.allowCrossNamespace) {
      issues.push(
        warning(
          "containment.cross-namespace-child",
          [...body, "metadata", "namespace"],
          `resource "${node.id}" takes its namespace from instance data: instance authors are admitted only where they may write it themselves (${ANNOTATIONS.allowCrossNamespace}: "true" silences this warning)`,
        ),
      );
    }
  }
  return issues;
}
