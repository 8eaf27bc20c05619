/**
 * Which authorization checks an instance author must pass (docs/design/authorization.md). The RGD
 * is the grant: a child whose scope the RGD fixes — the instance's own namespace, a literal
 * namespace, a cluster-scoped object with a literal name (scope-chooser.ts) — needs no right of
 * the instance author. Where instance data chooses the scope, the author must be able to create /
 * patch (server-side apply) / delete the child there, or get / list an external reference there.
 * Adoption is always the instance's choice: update (and delete) of whatever it adopts, exempt and
 * granted children included, since a grant is for *creating* what the RGD declares, never for
 * taking over someone else's. A child that is itself an instance of another RGD brings that RGD's
 * checks along, composed with the values the outer template gives it, so nesting launders
 * nothing: the checks run at the outer instance's admission against `request.userInfo`, which no
 * instance author can forge.
 *
 * Scope: where a namespace or name is a literal or reads only the instance
 * (admission-cel.ts), it is checked exactly there; anything else — another resource's data, an
 * iterator, a Go template — is checked at the strictest scope (all namespaces, any name). Pure.
 */
import { ANNOTATIONS } from "../../api/index.js";
import { namespaceSource, type CompiledNode, type ContainmentPolicy } from "../../graph/index.js";
import { REQUEST_ENV, translateValue, type AdmissionEnv, type AdmissionExpr } from "./admission-cel.js";
import { scopeChooser } from "./scope-chooser.js";

export interface ResolvedChildKind {
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

export type PolicyNode = Pick<CompiledNode, "id" | "type" | "apiVersion" | "kind" | "template" | "templateSource">;

/** Another RGD serving a child's kind: its nodes are checked too (with its own exemptions). */
export interface NestedGraph {
  readonly rgdName: string;
  readonly nodes: readonly PolicyNode[];
  readonly policy: ContainmentPolicy;
  readonly namespaced: boolean;
}

export interface AuthorCheckInput {
  readonly nodes: readonly PolicyNode[];
  /** Plural and scope of each child kind, from discovery; an unresolved kind is checked cluster-wide under its lowercase plural guess. */
  readonly kinds: ReadonlyMap<string, ResolvedChildKind>;
  readonly policy: ContainmentPolicy;
  readonly instanceNamespaced: boolean;
  /** The RGD serving `apiVersion/kind` as an instance kind, if any. */
  readonly nested?: (apiVersion: string, kind: string) => NestedGraph | undefined;
}

export interface AuthorCheck {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  /** CEL string expression, or undefined for a cluster-wide check (all namespaces). */
  readonly namespace: string | undefined;
  readonly clusterScoped: boolean;
  /** CEL string expression, or undefined for any name. */
  readonly name: string | undefined;
  /** CEL booleans: when one is false, the check is made at the strictest scope instead. */
  readonly guards: readonly string[];
  /** CEL boolean: the check applies only when it holds (adoption); undefined = always. */
  readonly when: string | undefined;
  readonly nodeIds: readonly string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const kindKey = (apiVersion: string, kind: string) => `${apiVersion}/${kind}`;

/** Nesting deeper than this is checked at the strictest scope as a plain child (no composition). */
const MAX_NESTING = 4;

const ADOPT_VALUE = `object.metadata.?annotations[?${JSON.stringify(ANNOTATIONS.adopt)}].orValue("").trim().lowerAscii()`;
/** The conditions of the checks an adopting instance needs (top level): the write gate reads them back. */
export const ADOPTION_CONDITIONS = {
  any: `${ADOPT_VALUE} in ["true", "delete"]`,
  delete: `${ADOPT_VALUE} == "delete"`,
} as const;
const REQUEST_ADOPTION: Adoption = ADOPTION_CONDITIONS;

/** When the controller adopts existing objects for this instance: CEL conditions, or undefined for never. */
interface Adoption {
  readonly any: string | undefined;
  readonly delete: string | undefined;
}

interface Scope {
  readonly env: AdmissionEnv;
  readonly adoption: Adoption;
  readonly namespaced: boolean;
  readonly prefix: string;
  readonly depth: number;
  readonly seen: readonly string[];
  /** The (nested) instance's own namespace is not chosen by the outermost instance's data. */
  readonly ownNamespaceFixed: boolean;
}

function resolve(input: AuthorCheckInput, node: PolicyNode): ResolvedChildKind {
  const group = node.apiVersion.includes("/") ? (node.apiVersion.split("/")[0] ?? "") : "";
  return (
    input.kinds.get(kindKey(node.apiVersion, node.kind)) ?? {
      group,
      resource: `${node.kind.toLowerCase()}s`,
      namespaced: false,
    }
  );
}

const metadataOf = (node: PolicyNode): Record<string, unknown> =>
  isRecord(node.template) && isRecord(node.template.metadata) ? node.template.metadata : {};

/** Where a namespaced child lands, as admission CEL; undefined: unknown at admission (all namespaces). */
function namespaceOf(node: PolicyNode, scope: Scope): AdmissionExpr | undefined {
  const source = namespaceSource(node);
  if (source.kind === "instance") return scope.namespaced ? scope.env.namespace : undefined;
  if (node.templateSource !== undefined) return undefined;
  const value = metadataOf(node).namespace;
  const translated = translateValue(value, scope.env);
  // An empty value is defaulted to the instance's namespace at runtime; "" asks about all namespaces (stricter).
  return translated;
}

function nameOf(node: PolicyNode, scope: Scope): AdmissionExpr | undefined {
  if (node.templateSource !== undefined || node.type === "collection") return undefined;
  return translateValue(metadataOf(node).name, scope.env);
}

type Verb = { readonly verb: string; readonly named: boolean; readonly when?: string | undefined };

function verbsOf(node: PolicyNode, exempt: boolean, adoption: Adoption): Verb[] {
  switch (node.type) {
    case "external":
      return exempt ? [] : [{ verb: "get", named: true }];
    case "externalCollection":
      return exempt ? [] : [{ verb: "list", named: false }];
    default:
      break;
  }
  // create is never restricted by resourceNames in RBAC, so it is asked without a name.
  const own: Verb[] = exempt
    ? []
    : [
        { verb: "create", named: false },
        { verb: "patch", named: true },
        { verb: "delete", named: true },
      ];
  // Taking over an existing object is never covered by an exemption.
  const adopt: Verb[] = [];
  if (adoption.any !== undefined) {
    adopt.push({ verb: "update", named: true, when: adoption.any });
    if (exempt) adopt.push({ verb: "patch", named: true, when: adoption.any });
  }
  if (exempt && adoption.delete !== undefined) adopt.push({ verb: "delete", named: true, when: adoption.delete });
  return [...own, ...adopt];
}

/** Every distinct check the graph needs, in author order (identical checks of several nodes merged). */
export function authorChecks(input: AuthorCheckInput): AuthorCheck[] {
  if (!input.policy.authorCheck) return [];
  const byKey = new Map<string, { check: Omit<AuthorCheck, "nodeIds">; nodeIds: string[] }>();
  const add = (check: Omit<AuthorCheck, "nodeIds">, nodeId: string) => {
    const key = JSON.stringify(check);
    const found = byKey.get(key);
    if (found === undefined) byKey.set(key, { check, nodeIds: [nodeId] });
    else if (!found.nodeIds.includes(nodeId)) found.nodeIds.push(nodeId);
  };
  collect(
    input,
    input.nodes,
    input.policy,
    {
      env: REQUEST_ENV,
      adoption: REQUEST_ADOPTION,
      namespaced: input.instanceNamespaced,
      prefix: "",
      depth: 0,
      seen: [],
      ownNamespaceFixed: true,
    },
    add,
  );
  return [...byKey.values()].map(({ check, nodeIds }) => ({ ...check, nodeIds }));
}

function collect(
  input: AuthorCheckInput,
  nodes: readonly PolicyNode[],
  policy: ContainmentPolicy,
  scope: Scope,
  add: (check: Omit<AuthorCheck, "nodeIds">, nodeId: string) => void,
): void {
  const exempt = new Set(policy.authorCheckExempt);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const node of nodes) {
    const kind = resolve(input, node);
    const namespace = kind.namespaced ? namespaceOf(node, scope) : undefined;
    const name = nameOf(node, scope);
    const nodeId = `${scope.prefix}${node.id}`;
    const granted = grantedByRgd(node, kind, byId, scope);
    for (const { verb, named, when } of verbsOf(node, exempt.has(node.id) || granted, scope.adoption)) {
      const guards = [...new Set([...(namespace?.guards ?? []), ...(named ? (name?.guards ?? []) : [])])];
      add(
        {
          group: kind.group,
          resource: kind.resource,
          verb,
          namespace: namespace?.cel,
          clusterScoped: !kind.namespaced,
          name: named ? name?.cel : undefined,
          guards,
          when,
        },
        nodeId,
      );
    }
    if (node.type !== "resource") continue;
    const inner = input.nested?.(node.apiVersion, node.kind);
    if (
      inner === undefined ||
      !inner.policy.authorCheck ||
      scope.seen.includes(inner.rgdName) ||
      scope.depth >= MAX_NESTING
    )
      continue;
    collect(
      input,
      inner.nodes,
      inner.policy,
      nestedScope(node, { namespace, name, fixed: granted }, inner, scope),
      add,
    );
  }
}

/**
 * The RGD is the grant: a child whose scope the RGD fixes (scope-chooser.ts) needs no right of the
 * instance author. Inside a nested graph, what the inner RGD calls fixed is fixed only when the
 * outer graph fixed the inner instance's namespace too (otherwise instance data still chose it).
 */
function grantedByRgd(
  node: PolicyNode,
  kind: ResolvedChildKind,
  nodes: ReadonlyMap<string, PolicyNode>,
  scope: Scope,
): boolean {
  const field = kind.namespaced ? "namespace" : "name";
  if (scopeChooser(node, field, nodes) !== "rgd") return false;
  return !kind.namespaced || scope.ownNamespaceFixed;
}

/** The admission environment of a nested instance: its spec, name and namespace as the outer template writes them. */
function nestedScope(
  node: PolicyNode,
  where: {
    readonly namespace: AdmissionExpr | undefined;
    readonly name: AdmissionExpr | undefined;
    /** The outer graph fixes where the inner instance lands (not the outer instance's data). */
    readonly fixed: boolean;
  },
  inner: NestedGraph,
  outer: Scope,
): Scope {
  const { namespace, name } = where;
  const template = isRecord(node.template) ? node.template : {};
  const spec = isRecord(template.spec) ? template.spec : {};
  const annotations = isRecord(metadataOf(node).annotations)
    ? (metadataOf(node).annotations as Record<string, unknown>)
    : {};
  const env: AdmissionEnv = {
    spec: (path) => {
      let value: unknown = spec;
      for (const part of path) value = isRecord(value) ? value[part] : undefined;
      return value === undefined ? undefined : translateValue(value, outer.env);
    },
    name,
    namespace: inner.namespaced ? namespace : undefined,
  };
  // The inner instance adopts only if the outer template says so; any value is taken as "yes" (stricter).
  const adopts = ANNOTATIONS.adopt in annotations;
  return {
    env,
    adoption: adopts ? { any: "true", delete: "true" } : { any: undefined, delete: undefined },
    namespaced: inner.namespaced,
    prefix: `${outer.prefix}${node.id}/`,
    depth: outer.depth + 1,
    seen: [...outer.seen, inner.rgdName],
    ownNamespaceFixed: inner.namespaced && where.fixed,
  };
}
