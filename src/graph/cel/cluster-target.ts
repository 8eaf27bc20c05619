/**
 * A resource's target cluster (docs/design/clusters.md): `cluster:` names the registered cluster a child
 * is placed in — a constant, or a `${…}` expression over the instance (also per forEach item).
 * The RGD author decides where instances may reach: an expression target must come with
 * `clusters:`, the list of clusters it may evaluate to; the controller refuses any other value.
 *
 * The target travels in the child's own body, as the reserved annotation ANNOTATIONS.cluster,
 * so the runtime evaluates it like any other field (dependencies, forEach) and the child's
 * identity carries it; a template cannot set that annotation itself (reserved prefix).
 */
import { ANNOTATIONS } from "../../api/index.js";
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import { extractExpressions } from "../../expr/index.js";
import { isRecord } from "../is-record.js";

/** What a registered cluster may be called: a DNS label, as a Secret label value can hold it. */
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface ClusterTarget {
  /** The template with the target annotation added (the input is never modified). */
  readonly template: Record<string, unknown>;
  /** The clusters an instance may target through this resource. */
  readonly clusters: readonly string[];
}

/** Undefined: the resource has no target (it lives in the controller's cluster, as always). */
export function clusterTarget(
  entry: Record<string, unknown>,
  template: Record<string, unknown>,
  path: IssuePath,
  issues: Issue[],
): ClusterTarget | undefined {
  const { cluster, clusters } = entry;
  if (cluster === undefined) {
    if (clusters !== undefined)
      issues.push(
        error(
          "rgd.cluster-list-without-target",
          [...path, "clusters"],
          "clusters lists where `cluster:` may point; set cluster too",
        ),
      );
    return undefined;
  }
  if (entry.externalRef !== undefined) {
    issues.push(
      error(
        "rgd.cluster-external",
        [...path, "cluster"],
        "cluster targets apply to templates; an externalRef is read from the controller's cluster",
      ),
    );
    return undefined;
  }
  if (typeof cluster !== "string" || cluster === "") {
    issues.push(
      error("rgd.invalid-field", [...path, "cluster"], 'cluster must be a cluster name or a "${...}" expression'),
    );
    return undefined;
  }
  const allowed = allowList(clusters, [...path, "clusters"], issues);
  const found = extractExpressions(cluster);
  if (found.segments.some((s) => s.kind === "expression")) {
    if (allowed === undefined) {
      issues.push(
        error(
          "rgd.cluster-allowlist-required",
          [...path, "cluster"],
          "an expression target needs `clusters:`, the list of registered clusters it may evaluate to (the RGD author decides where instances may reach)",
        ),
      );
      return undefined;
    }
  } else {
    if (!CLUSTER_NAME.test(cluster))
      issues.push(
        error(
          "rgd.invalid-cluster-name",
          [...path, "cluster"],
          `cluster "${cluster}" is not a valid cluster name (a DNS label: lowercase letters, digits and '-')`,
        ),
      );
    if (allowed !== undefined && !allowed.includes(cluster))
      issues.push(
        error(
          "rgd.cluster-not-allowed",
          [...path, "cluster"],
          `cluster "${cluster}" is not in this resource's clusters list`,
        ),
      );
  }
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  return {
    template: {
      ...template,
      metadata: { ...metadata, annotations: { ...annotations, [ANNOTATIONS.cluster]: cluster } },
    },
    clusters: allowed ?? [cluster],
  };
}

function allowList(value: unknown, path: IssuePath, issues: Issue[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    issues.push(error("rgd.invalid-field", path, "clusters must be a non-empty list of cluster names"));
    return [];
  }
  return value.flatMap((name, i) => {
    if (typeof name === "string" && CLUSTER_NAME.test(name)) return [name];
    issues.push(
      error(
        "rgd.invalid-cluster-name",
        [...path, i],
        `${JSON.stringify(name)} is not a valid cluster name (a DNS label)`,
      ),
    );
    return [];
  });
}
