/**
 * What an RGD delegates, as rights its recorded author must hold: for every
 * exempt child (every child, and every chart lookup, when the RGD turns the author check off),
 * the verbs an instance author is spared — create / patch / delete of a child, get / list of an
 * external reference, update too when adoption is waived — at the widest scope an instance can
 * reach: the RGD's literal namespace and name where it wrote one, else all namespaces and any
 * name (an instance may live in any namespace its author may create it in). Pure.
 */
import { classifyMetadataValue, namespaceSource, type ContainmentPolicy } from "../../graph/index.js";
import { kindKey, type PolicyNode, type ResolvedChildKind } from "./author-checks.js";

export interface DelegatedRight {
  readonly nodeId: string;
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  /** undefined: cluster-scoped; "": all namespaces. */
  readonly namespace: string | undefined;
  /** undefined: any name. */
  readonly name: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The nodes whose checks the RGD waives: its exemptions, or all of them when the check is Disabled. */
export function delegatedNodes<N extends PolicyNode>(nodes: readonly N[], policy: ContainmentPolicy): N[] {
  if (!policy.authorCheck) return [...nodes];
  const exempt = new Set(policy.authorCheckExempt);
  return nodes.filter((n) => exempt.has(n.id));
}

function verbsOf(node: PolicyNode, disabled: boolean): string[] {
  if (node.type === "external") return ["get"];
  if (node.type === "externalCollection") return ["list"];
  return disabled ? ["create", "patch", "delete", "update"] : ["create", "patch", "delete"];
}

export function delegatedRights(
  nodes: readonly PolicyNode[],
  policy: ContainmentPolicy,
  kinds: ReadonlyMap<string, ResolvedChildKind>,
): DelegatedRight[] {
  const out: DelegatedRight[] = [];
  for (const node of delegatedNodes(nodes, policy)) {
    const group = node.apiVersion.includes("/") ? (node.apiVersion.split("/")[0] ?? "") : "";
    const kind = kinds.get(kindKey(node.apiVersion, node.kind)) ?? {
      group,
      resource: `${node.kind.toLowerCase()}s`,
      namespaced: false,
    };
    const source = namespaceSource(node);
    const namespace = !kind.namespaced ? undefined : source.kind === "constant" ? source.value : "";
    const metadata = isRecord(node.template) && isRecord(node.template.metadata) ? node.template.metadata : {};
    const nameSource =
      node.templateSource === undefined && node.type !== "collection"
        ? classifyMetadataValue(metadata.name)
        : undefined;
    const name = nameSource?.kind === "constant" ? nameSource.value : undefined;
    for (const verb of verbsOf(node, !policy.authorCheck)) {
      // create is never limited by resourceNames in RBAC: asked without a name.
      out.push({
        nodeId: node.id,
        group: kind.group,
        resource: kind.resource,
        verb,
        namespace,
        name: verb === "create" ? undefined : name,
      });
    }
  }
  return out;
}

/** "create configmaps in namespace x" / "delete clusterroles.rbac.authorization.k8s.io named y (cluster-scoped)". */
export function rightText(right: DelegatedRight): string {
  const what = right.group === "" ? right.resource : `${right.resource}.${right.group}`;
  const named = right.name === undefined ? "" : ` named ${right.name}`;
  const where =
    right.namespace === undefined
      ? " (cluster-scoped)"
      : right.namespace === ""
        ? " in all namespaces"
        : ` in namespace ${right.namespace}`;
  return `${right.verb} ${what}${named}${where}`;
}
