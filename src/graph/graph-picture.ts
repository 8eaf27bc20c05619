/**
 * Pictures of a compiled graph: plain text, Mermaid and Graphviz DOT, built only from the
 * dialect-neutral fields of a node (id, kind, apiVersion, type, dependencies, includeWhen,
 * forEach, wave) so both dialects draw the same way. Pure string building; rendering DOT to SVG
 * is the CLI's job. The instance is the root: every node without a resource dependency hangs off
 * it. An optional state overlay (`colorBy`) colours nodes for the live `kro graph --instance`.
 */
import type { NodeType } from "./compiled-graph.js";

export const PICTURE_FORMATS = ["text", "mermaid", "dot"] as const;
export type PictureFormat = (typeof PICTURE_FORMATS)[number];

export const NODE_STATES = ["ready", "waiting", "error", "excluded", "pending"] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** The id the instance node has in pictures and in `colorBy`; a reserved resource id, so it never clashes. */
export const INSTANCE_NODE_ID = "instance";

/** The fields a picture reads; a CompiledGraph of either dialect satisfies it. */
export interface PictureGraph {
  readonly name: string;
  readonly instance: { readonly group: string; readonly version: string; readonly kind: string };
  readonly nodes: readonly {
    readonly id: string;
    readonly kind: string;
    readonly apiVersion: string;
    readonly type: NodeType;
    readonly dependencies: readonly string[];
    readonly includeWhen: readonly unknown[];
    readonly forEach: readonly unknown[];
    readonly wave: number;
  }[];
  readonly topologicalOrder: readonly string[];
}

export interface PictureOptions {
  /** Node id (or `instance`) → state; nodes without an entry are drawn uncoloured. */
  readonly colorBy?: Readonly<Record<string, NodeState>>;
}

type PictureNode = PictureGraph["nodes"][number];

const STATE_COLORS: Readonly<Record<NodeState, { fill: string; stroke: string }>> = {
  ready: { fill: "#c8e6c9", stroke: "#2e7d32" },
  waiting: { fill: "#fff3c4", stroke: "#b28704" },
  error: { fill: "#ffcdd2", stroke: "#c62828" },
  excluded: { fill: "#eeeeee", stroke: "#9e9e9e" },
  pending: { fill: "#bbdefb", stroke: "#1565c0" },
};

const isConditional = (n: PictureNode): boolean => n.includeWhen.length > 0;
const isCollection = (n: PictureNode): boolean =>
  n.forEach.length > 0 || n.type === "collection" || n.type === "externalCollection";
const isExternal = (n: PictureNode): boolean => n.type === "external" || n.type === "externalCollection";

/** Traits in a fixed order, shared by every format's labels and legends. */
function traits(n: PictureNode): string[] {
  return [
    ...(isExternal(n) ? ["external"] : []),
    ...(isCollection(n) ? ["collection"] : []),
    ...(isConditional(n) ? ["conditional"] : []),
  ];
}

/** Nodes in topological order (author order for any the order misses). */
function ordered(graph: PictureGraph): PictureNode[] {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const seen = new Set<string>();
  const out: PictureNode[] = [];
  for (const id of [...graph.topologicalOrder, ...graph.nodes.map((n) => n.id)]) {
    const node = byId.get(id);
    if (node !== undefined && !seen.has(id)) {
      seen.add(id);
      out.push(node);
    }
  }
  return out;
}

/** [from, to] edges: dependency → dependent, and instance → every node without dependencies. */
function edges(graph: PictureGraph): [string, string][] {
  const ids = new Set(graph.nodes.map((n) => n.id));
  return ordered(graph).flatMap((n) => {
    const deps = n.dependencies.filter((d) => ids.has(d));
    return deps.length === 0
      ? [[INSTANCE_NODE_ID, n.id] as [string, string]]
      : deps.map((d) => [d, n.id] as [string, string]);
  });
}

const instanceTitle = (graph: PictureGraph): string =>
  `${graph.instance.kind} (${graph.instance.group}/${graph.instance.version})`;

export function graphText(graph: PictureGraph, options: PictureOptions = {}): string {
  const nodes = ordered(graph);
  const state = (id: string): string => (options.colorBy?.[id] === undefined ? "" : `  {${options.colorBy[id]}}`);
  const rows = nodes.map((n) => {
    const deps = n.dependencies.length === 0 ? INSTANCE_NODE_ID : n.dependencies.join(", ");
    const marks = traits(n)
      .map((t) => ` [${t}]`)
      .join("");
    return [n.id, `${n.kind} ${n.apiVersion}`, `wave ${n.wave}`, `<- ${deps}${marks}${state(n.id)}`];
  });
  const widths = [0, 1, 2].map((c) => Math.max(0, ...rows.map((r) => r[c]?.length ?? 0)));
  const lines = [
    `graph ${graph.name}: instance ${instanceTitle(graph)}${state(INSTANCE_NODE_ID)}`,
    ...rows.map((r) => `  ${r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c] ?? 0) : cell)).join("  ")}`),
    `order: ${nodes.map((n) => n.id).join(" -> ")}`,
    "legend: <- depends on (instance = only the instance spec); [conditional] includeWhen, [collection] forEach or selector, [external] externalRef",
  ];
  return `${lines.join("\n")}\n`;
}

const mermaidId = (id: string): string => `n_${id}`;
const mermaidText = (s: string): string => s.replace(/"/g, "#quot;");

function mermaidShape(n: PictureNode, label: string): string {
  if (isExternal(n)) return `[/"${label}"/]`;
  if (isCollection(n)) return `[["${label}"]]`;
  return `["${label}"]`;
}

export function graphMermaid(graph: PictureGraph, options: PictureOptions = {}): string {
  const lines = [
    "flowchart TD",
    `  ${mermaidId(INSTANCE_NODE_ID)}(["${mermaidText(graph.instance.kind)}<br/>instance"])`,
  ];
  for (const n of ordered(graph)) {
    const extra = traits(n).length === 0 ? "" : `<br/><i>${traits(n).join(", ")}</i>`;
    lines.push(`  ${mermaidId(n.id)}${mermaidShape(n, `${mermaidText(n.id)}<br/>${mermaidText(n.kind)}${extra}`)}`);
  }
  for (const [from, to] of edges(graph)) lines.push(`  ${mermaidId(from)} --> ${mermaidId(to)}`);
  lines.push(
    "  subgraph legend [legend]",
    "    direction LR",
    '    legend_resource["resource"]',
    '    legend_conditional["conditional (includeWhen)"]',
    '    legend_collection[["collection (forEach)"]]',
    '    legend_external[/"external (externalRef)"/]',
    "  end",
    "  classDef conditional stroke-dasharray: 5 5",
    "  classDef instance stroke-width:3px",
  );
  const conditional = [
    ...ordered(graph)
      .filter(isConditional)
      .map((n) => mermaidId(n.id)),
    "legend_conditional",
  ];
  lines.push(`  class ${conditional.join(",")} conditional`, `  class ${mermaidId(INSTANCE_NODE_ID)} instance`);
  for (const state of NODE_STATES) {
    const ids = Object.entries(options.colorBy ?? {})
      .filter(([, s]) => s === state)
      .map(([id]) => mermaidId(id));
    if (ids.length === 0) continue;
    lines.push(
      `  classDef ${state} fill:${STATE_COLORS[state].fill},stroke:${STATE_COLORS[state].stroke}`,
      `  class ${ids.join(",")} ${state}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const dotString = (s: string): string => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;

function dotAttributes(n: PictureNode | undefined, label: string, state: NodeState | undefined): string {
  const shape = n === undefined ? "doubleoctagon" : isExternal(n) ? "parallelogram" : isCollection(n) ? "box3d" : "box";
  const style = [
    ...(n !== undefined && isConditional(n) ? ["dashed"] : []),
    ...(n !== undefined && !isExternal(n) && !isCollection(n) ? ["rounded"] : []),
    ...(state === undefined ? [] : ["filled"]),
  ];
  const attrs = [`label=${dotString(label)}`, `shape=${shape}`];
  // an external collection is a parallelogram; a double border shows it is a list
  if (n?.type === "externalCollection") attrs.push("peripheries=2");
  if (style.length > 0) attrs.push(`style=${dotString(style.join(","))}`);
  if (state !== undefined)
    attrs.push(`fillcolor=${dotString(STATE_COLORS[state].fill)}`, `color=${dotString(STATE_COLORS[state].stroke)}`);
  return attrs.join(" ");
}

export function graphDot(graph: PictureGraph, options: PictureOptions = {}): string {
  const stateOf = (id: string): NodeState | undefined => options.colorBy?.[id];
  const lines = [
    `digraph ${dotString(graph.name)} {`,
    "  rankdir=TB;",
    '  node [fontname="Helvetica" fontsize=11];',
    '  edge [color="#555555"];',
    `  ${dotString(INSTANCE_NODE_ID)} [${dotAttributes(undefined, `${graph.instance.kind}\ninstance`, stateOf(INSTANCE_NODE_ID))}];`,
  ];
  for (const n of ordered(graph)) {
    const extra = traits(n).length === 0 ? "" : `\n(${traits(n).join(", ")})`;
    lines.push(`  ${dotString(n.id)} [${dotAttributes(n, `${n.id}\n${n.kind}${extra}`, stateOf(n.id))}];`);
  }
  for (const [from, to] of edges(graph)) lines.push(`  ${dotString(from)} -> ${dotString(to)};`);
  lines.push(
    "  subgraph cluster_legend {",
    '    label="legend"; fontname="Helvetica"; fontsize=10; color="#bbbbbb";',
    "    node [fontsize=9];",
    '    "legend:resource" [label="resource" shape=box style="rounded"];',
    '    "legend:conditional" [label="conditional\\n(includeWhen)" shape=box style="dashed,rounded"];',
    '    "legend:collection" [label="collection\\n(forEach)" shape=box3d];',
    '    "legend:external" [label="external\\n(externalRef)" shape=parallelogram];',
    "  }",
    "}",
  );
  return `${lines.join("\n")}\n`;
}

export function graphPicture(graph: PictureGraph, format: PictureFormat, options: PictureOptions = {}): string {
  switch (format) {
    case "text":
      return graphText(graph, options);
    case "mermaid":
      return graphMermaid(graph, options);
    case "dot":
      return graphDot(graph, options);
  }
}
