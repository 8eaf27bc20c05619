/**
 * `kro tree` as text: one row per instance, node and object, drawn as a tree (like `crossplane
 * beta trace`), with columns STATE, AGE and REASON. Pure: `now` is passed in.
 */
import {
  humanAge,
  TREE_STATES,
  type InstanceTree,
  type TreeNode,
  type TreeObject,
  type TreeState,
} from "../../inspect/index.js";

const STATE_WORDS: Readonly<Record<TreeState, string>> = {
  [TREE_STATES.ready]: "ready",
  [TREE_STATES.waitingForReadiness]: "waiting for readiness",
  [TREE_STATES.waitingOnDependency]: "waiting on dependency",
  [TREE_STATES.excluded]: "excluded",
  [TREE_STATES.error]: "error",
  [TREE_STATES.deleting]: "deleting",
  [TREE_STATES.unknown]: "unknown",
};

interface Row {
  readonly name: string;
  readonly state: string;
  readonly age: string;
  readonly reason: string;
}

const age = (createdAt: string | undefined, now: number): string =>
  createdAt === undefined ? "-" : humanAge(now - Date.parse(createdAt));

function objectLabel(
  o: { kind: string; name: string; namespace?: string; cluster?: string },
  namespace: string | undefined,
): string {
  const where = [
    ...(o.namespace !== undefined && o.namespace !== namespace ? [o.namespace] : []),
    ...(o.cluster === undefined ? [] : [`cluster ${o.cluster}`]),
  ];
  return `${o.kind}/${o.name}${where.length === 0 ? "" : ` (${where.join(", ")})`}`;
}

function nodeReason(node: TreeNode): string {
  const b = node.blockedBy;
  if (b?.expression !== undefined && node.state !== TREE_STATES.waitingOnDependency)
    return `${node.reason}: ${b.expression}`;
  return node.reason;
}

function instanceRows(tree: InstanceTree, prefix: string, now: number, rows: Row[]): void {
  tree.nodes.forEach((node, i) => {
    const last = i === tree.nodes.length - 1;
    const branch = `${prefix}${last ? "└── " : "├── "}`;
    const below = `${prefix}${last ? "    " : "│   "}`;
    const single = node.type === "resource" || node.type === "external" ? node.objects[0] : undefined;
    const what =
      single !== undefined
        ? objectLabel(single, tree.namespace)
        : node.objects.length > 0
          ? `${node.kind} ×${node.objects.length}`
          : node.kind;
    const nested = single?.instance;
    const reason =
      nested === undefined
        ? nodeReason(node)
        : `${nodeReason(node)}; instance ${nested.ready ? "Ready" : `not Ready: ${[nested.reason, nested.message].filter((t) => t !== "").join(": ")}`}`;
    rows.push({
      name: `${branch}${node.id}: ${what}`,
      state: STATE_WORDS[node.state],
      age: age(single?.createdAt, now),
      reason,
    });
    if (nested !== undefined) {
      instanceRows(nested, below, now, rows);
      return;
    }
    if (single !== undefined) return;
    node.objects.forEach((o, k) => {
      const lastObject = k === node.objects.length - 1;
      objectRows(
        o,
        `${below}${lastObject ? "└── " : "├── "}`,
        `${below}${lastObject ? "    " : "│   "}`,
        tree.namespace,
        now,
        rows,
      );
    });
  });
}

function objectRows(
  o: TreeObject,
  branch: string,
  below: string,
  namespace: string | undefined,
  now: number,
  rows: Row[],
): void {
  const nested = o.instance;
  rows.push({
    name: `${branch}${objectLabel(o, namespace)}`,
    state: nested === undefined ? "" : nested.ready ? "ready" : "not ready",
    age: age(o.createdAt, now),
    reason: nested === undefined ? "" : nested.message,
  });
  if (nested !== undefined) instanceRows(nested, below, now, rows);
}

/**
 * Under a rollout: "revision 7", or "assigned 7, running 6" while the instance has not run its
 * assignment yet; a pin the rollout does not honour is said after it.
 */
function revisionText(tree: InstanceTree): string {
  const r = tree.revision;
  if (r === undefined) return "";
  const pin = r.pinProblem === undefined ? "" : `; pin not honoured: ${r.pinProblem}`;
  if (r.assigned === undefined || r.assigned === r.running)
    return r.running === undefined ? "" : `revision ${r.running}${pin}`;
  return `assigned ${r.assigned}, running ${r.running ?? "none yet"}${pin}`;
}

/** The whole tree, with a header row; columns padded to the widest cell. */
export function formatTree(tree: InstanceTree, now: number): string {
  const rootState = tree.ready
    ? "ready"
    : tree.reason === "Reconciling"
      ? "reconciling"
      : `not ready${tree.state === undefined ? "" : ` (${tree.state})`}`;
  const rows: Row[] = [
    { name: "NAME", state: "STATE", age: "AGE", reason: "REASON" },
    {
      name: `${tree.kind}/${tree.name}${tree.namespace === undefined ? "" : ` (${tree.namespace})`}`,
      state: rootState,
      age: age(tree.createdAt, now),
      reason: [
        tree.ready ? tree.reason : [tree.reason, tree.message].filter((t) => t !== "").join(": "),
        revisionText(tree),
      ]
        .filter((t) => t !== "")
        .join("; "),
    },
  ];
  instanceRows(tree, "", now, rows);
  const width = (pick: (r: Row) => string): number => Math.max(...rows.map((r) => pick(r).length));
  const [nw, sw, aw] = [width((r) => r.name), width((r) => r.state), width((r) => r.age)];
  return `${rows.map((r) => `${r.name.padEnd(nw)}  ${r.state.padEnd(sw)}  ${r.age.padEnd(aw)}  ${r.reason}`.trimEnd()).join("\n")}\n`;
}
