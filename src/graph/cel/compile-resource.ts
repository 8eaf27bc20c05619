/**
 * Phase 3 of kro's compile (docs/reference/kro-reference.md §5): the shape of one
 * `spec.resources[]` entry — template xor externalRef, object structure, reserved label prefixes,
 * scope rules, forEach iterators — and every `${…}` field it holds. Dependencies come later, once
 * all ids are known.
 */
import { ANNOTATIONS } from "../../api/index.js";
import { error, prefixIssues, type Issue, type IssuePath } from "../../diag/index.js";
import { extractExpressions, findExpressions } from "../../expr/index.js";
import type { CompiledNode, ForEachDimension, NodeType, PropagationRule } from "../compiled-graph.js";
import { MAX_COLLECTION_DIMENSIONS, checkIdentifier } from "../naming.js";
import type { SchemaResolver } from "../schema-resolver.js";
import { isRecord } from "../is-record.js";
import { checkChildKind, checkCrdTemplateExpressions, type UnknownKinds } from "../child-kind-checks.js";
import { checkTemplateLiterals } from "./template-literals.js";
import { clusterTarget } from "./cluster-target.js";
import { propagationRules } from "./propagate-when.js";

type SourceExpression = { readonly text: string; readonly path: IssuePath };

/** A CompiledNode before dependencies and waves are known, with paths kept for diagnostics. */
export interface DraftNode extends Omit<
  CompiledNode,
  "includeWhen" | "readyWhen" | "forEach" | "dependencies" | "wave" | "propagateWhen"
> {
  readonly path: IssuePath;
  readonly includeWhen: readonly SourceExpression[];
  readonly readyWhen: readonly SourceExpression[];
  readonly forEach: readonly (ForEachDimension & { readonly path: IssuePath })[];
  readonly propagateWhen: readonly PropagationRule[];
}

const RESERVED_LABEL_PREFIXES = ["kro.run/", "internal.kro.run/"];
/**
 * kro v0.9 reserves only labels: a template may set `kro.run/` annotations (`kro.run/reconcile` or
 * `kro.run/adopt` on a nested instance, `kro.run/allow-breaking-changes` on a nested RGD). kro-ts
 * keeps the annotations it stores its own state in: every `internal.kro.run/` one (the creation
 * key that proves a child is ours, the apply order), the target cluster (set only from `cluster:`),
 * and the trust markers the controller and the delegation policy write.
 */
const RESERVED_ANNOTATION_PREFIXES = ["internal.kro.run/"];
const RESERVED_ANNOTATIONS: ReadonlySet<string> = new Set([
  ANNOTATIONS.cluster,
  ANNOTATIONS.delegatedBy,
  ANNOTATIONS.delegatedGroups,
  ANNOTATIONS.uncheckedAdmission,
]);

function reservedKey(field: "labels" | "annotations", key: string): boolean {
  if (field === "labels") return RESERVED_LABEL_PREFIXES.some((p) => key.startsWith(p));
  return RESERVED_ANNOTATIONS.has(key) || RESERVED_ANNOTATION_PREFIXES.some((p) => key.startsWith(p));
}

/** A list of standalone `${bool}` expressions (includeWhen / readyWhen). */
function standaloneList(value: unknown, path: IssuePath, what: string, issues: Issue[]): SourceExpression[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(error("rgd.invalid-field", path, `${what} must be a list of "\${...}" expressions`));
    return [];
  }
  return value.flatMap((item, i) => {
    const at = [...path, i];
    const found = typeof item === "string" ? extractExpressions(item) : undefined;
    if (found === undefined || !found.standalone) {
      issues.push(
        error(
          "rgd.not-standalone",
          at,
          `${what} entries must be a single "\${...}" expression, got ${JSON.stringify(item)}`,
        ),
      );
      return [];
    }
    issues.push(...prefixIssues(at, found.issues));
    const segment = found.segments[0];
    return segment?.kind === "expression" ? [{ text: segment.source, path: at }] : [];
  });
}

function forEachDimensions(
  value: unknown,
  path: IssuePath,
  issues: Issue[],
): (ForEachDimension & { path: IssuePath })[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(error("rgd.invalid-field", path, 'forEach must be a list of {iterator: "${list}"} entries'));
    return [];
  }
  if (value.length > MAX_COLLECTION_DIMENSIONS) {
    issues.push(
      error(
        "rgd.foreach-too-many",
        path,
        `forEach has ${value.length} dimensions; at most ${MAX_COLLECTION_DIMENSIONS} are allowed`,
      ),
    );
  }
  const seen = new Set<string>();
  return value.flatMap((entry, i) => {
    const at = [...path, i];
    const keys = isRecord(entry) ? Object.keys(entry) : [];
    const name = keys[0];
    if (!isRecord(entry) || keys.length !== 1 || name === undefined) {
      issues.push(
        error("rgd.foreach-entry", at, 'each forEach entry must have exactly one iterator: {name: "${list}"}'),
      );
      return [];
    }
    issues.push(...checkIdentifier("forEach iterator", name, [...at, name]));
    if (seen.has(name))
      issues.push(error("rgd.foreach-duplicate", [...at, name], `forEach iterator "${name}" is declared twice`));
    seen.add(name);
    const list = entry[name];
    const found = typeof list === "string" ? extractExpressions(list) : undefined;
    const segment = found?.segments[0];
    if (found === undefined || !found.standalone || segment?.kind !== "expression") {
      issues.push(
        error(
          "rgd.not-standalone",
          [...at, name],
          `forEach iterator "${name}" must be a single "\${...}" list expression`,
        ),
      );
      return [];
    }
    return [{ name, expression: segment.source, path: [...at, name] }];
  });
}

function checkMetadataKeys(metadata: Record<string, unknown>, path: IssuePath, issues: Issue[]): void {
  for (const field of ["labels", "annotations"] as const) {
    const map = metadata[field];
    if (!isRecord(map)) continue;
    for (const key of Object.keys(map)) {
      if (!reservedKey(field, key)) continue;
      issues.push(
        error(
          "rgd.reserved-label",
          [...path, field, key],
          field === "labels"
            ? `label "${key}" uses a prefix reserved for kro (kro.run/, internal.kro.run/)`
            : `annotation "${key}" is kept by kro-ts for its own state (internal.kro.run/, ${[...RESERVED_ANNOTATIONS].join(", ")})`,
        ),
      );
    }
  }
}

export interface DraftContext {
  readonly resolver: SchemaResolver | undefined;
  readonly instanceScope: "Namespaced" | "Cluster";
  /** What a kind no schema source knows is: a warning offline (default), an error with discovery. */
  readonly unknownKinds?: UnknownKinds;
}

export function draftNode(entry: unknown, index: number, context: DraftContext): { node?: DraftNode; issues: Issue[] } {
  const path: IssuePath = ["spec", "resources", index];
  const issues: Issue[] = [];
  if (!isRecord(entry))
    return {
      issues: [error("rgd.invalid-resource", path, "a resource must be an object with id and template or externalRef")],
    };
  const id = entry.id;
  issues.push(...checkIdentifier("resource id", id, [...path, "id"]));
  const hasTemplate = entry.template !== undefined;
  const external = entry.externalRef;
  if (hasTemplate === (external !== undefined))
    issues.push(error("rgd.template-xor-external", path, "exactly one of template or externalRef must be provided"));
  if (external !== undefined && entry.forEach !== undefined)
    issues.push(error("rgd.external-foreach", [...path, "forEach"], "forEach cannot be combined with externalRef"));

  const bodyPath: IssuePath = [...path, hasTemplate ? "template" : "externalRef"];
  const written = hasTemplate ? entry.template : external;
  if (
    !isRecord(written) ||
    typeof written.apiVersion !== "string" ||
    typeof written.kind !== "string" ||
    !isRecord(written.metadata)
  ) {
    issues.push(
      error("rgd.invalid-object", bodyPath, "must be an object with string apiVersion, string kind and a metadata map"),
    );
    return { issues };
  }
  const { apiVersion, kind } = written;
  const metadata = written.metadata;
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(kind.toLowerCase()))
    issues.push(error("rgd.invalid-kind", [...bodyPath, "kind"], `kind "${kind}" is not a valid Kubernetes kind`));
  checkMetadataKeys(metadata, [...bodyPath, "metadata"], issues);
  // After the reserved-prefix check: only `cluster:` may set the target annotation.
  const target = clusterTarget(entry, written, path, issues);
  const body = target?.template ?? written;

  issues.push(
    ...checkChildKind(apiVersion, kind, [...bodyPath, "apiVersion"], context.resolver, context.unknownKinds ?? "warn"),
  );
  const resolved = context.resolver?.resolve(apiVersion, kind);
  const namespaced = resolved?.namespaced;
  if (namespaced === false && metadata.namespace !== undefined) {
    issues.push(
      error(
        "rgd.cluster-scoped-namespace",
        [...bodyPath, "metadata", "namespace"],
        `${kind} is cluster-scoped and must not set metadata.namespace`,
      ),
    );
  }
  const isSelector = external !== undefined && isRecord(metadata.selector);
  if (
    context.instanceScope === "Cluster" &&
    namespaced === true &&
    hasTemplate &&
    (typeof metadata.namespace !== "string" || metadata.namespace === "")
  ) {
    issues.push(
      error(
        "rgd.namespace-required",
        [...bodyPath, "metadata"],
        `instances are cluster-scoped, so namespaced ${kind} must set metadata.namespace`,
      ),
    );
  }

  const found = findExpressions(body);
  issues.push(...prefixIssues(bodyPath, found.issues));
  const crdTemplate = hasTemplate && apiVersion === "apiextensions.k8s.io/v1" && kind === "CustomResourceDefinition";
  if (crdTemplate) issues.push(...checkCrdTemplateExpressions(found.fields, bodyPath));
  else if (hasTemplate && resolved !== undefined)
    issues.push(...checkTemplateLiterals(body, resolved.schema, bodyPath));
  const forEach = forEachDimensions(entry.forEach, [...path, "forEach"], issues);
  const type: NodeType =
    external !== undefined
      ? isSelector
        ? "externalCollection"
        : "external"
      : forEach.length > 0
        ? "collection"
        : "resource";
  const nodeId = typeof id === "string" ? id : `#${index}`;
  const propagation = propagationRules(
    { id: nodeId, path, iterators: external === undefined ? forEach.map((d) => d.name) : [] },
    standaloneList(entry.propagateWhen, [...path, "propagateWhen"], "propagateWhen", issues),
  );
  issues.push(...propagation.issues);
  const node: DraftNode = {
    id: nodeId,
    index,
    path,
    type,
    apiVersion,
    kind,
    namespaced,
    template: body,
    fields: found.fields,
    includeWhen: standaloneList(entry.includeWhen, [...path, "includeWhen"], "includeWhen", issues),
    readyWhen: standaloneList(entry.readyWhen, [...path, "readyWhen"], "readyWhen", issues),
    forEach,
    propagateWhen: propagation.rules,
    ...(target === undefined ? {} : { clusters: target.clusters }),
  };
  return { node, issues };
}
