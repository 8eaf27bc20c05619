/**
 * The dependency DAG of an RGD: cycle detection that spells the cycle out, a topological order
 * that keeps the author's list order wherever dependencies allow (kro: Kahn's algorithm with a
 * min-heap on the original index), and the apply-order waves used for deletion and pruning.
 */

/** Node ids in author order, and for each id the ids it depends on. */
export interface DagInput {
  readonly ids: readonly string[];
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
}

export type TopologicalResult =
  { readonly ok: true; readonly order: readonly string[] } | { readonly ok: false; readonly cycle: readonly string[] };

/** The first cycle found by DFS in author order, as `[a, b, a]`; undefined if the graph is acyclic. */
export function findCycle(input: DagInput): string[] | undefined {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const seen = state.get(id);
    if (seen === "done") return undefined;
    if (seen === "visiting") return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of input.dependencies.get(id) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const id of input.ids) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(" -> ");
}

export function topologicalOrder(input: DagInput): TopologicalResult {
  const cycle = findCycle(input);
  if (cycle) return { ok: false, cycle };
  const position = new Map(input.ids.map((id, index) => [id, index]));
  const remaining = new Map(input.ids.map((id) => [id, new Set(input.dependencies.get(id) ?? [])]));
  const order: string[] = [];
  // n is the number of resources in one RGD (tens to hundreds): a scan per step is simpler than
  // a heap and equally fast in practice.
  while (remaining.size > 0) {
    let next: string | undefined;
    for (const [id, deps] of remaining) {
      if (deps.size > 0) continue;
      if (next === undefined || (position.get(id) ?? 0) < (position.get(next) ?? 0)) next = id;
    }
    if (next === undefined) throw new Error("internal: no ready node in an acyclic graph");
    order.push(next);
    remaining.delete(next);
    for (const deps of remaining.values()) deps.delete(next);
  }
  return { ok: true, order };
}

/**
 * Wave per node (kro §5.7): layer 0 holds nodes nothing depends on; layer k nodes whose
 * dependents all sit in lower layers; wave = layerCount − layer. Dependencies get lower waves,
 * so deleting in descending wave order removes dependents first.
 */
export function applyWaves(input: DagInput): Map<string, number> {
  const dependents = new Map<string, string[]>(input.ids.map((id) => [id, []]));
  for (const id of input.ids) {
    for (const dep of input.dependencies.get(id) ?? []) dependents.get(dep)?.push(id);
  }
  const layer = new Map<string, number>();
  const layerOf = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    const own = Math.max(-1, ...(dependents.get(id) ?? []).map(layerOf)) + 1;
    layer.set(id, own);
    return own;
  };
  input.ids.forEach(layerOf);
  const layerCount = Math.max(0, ...layer.values()) + 1;
  return new Map(input.ids.map((id) => [id, layerCount - (layer.get(id) ?? 0)]));
}

/** Ids grouped by wave, highest wave first: the order in which to delete. */
export function deletionWaves(input: DagInput): string[][] {
  const waves = applyWaves(input);
  const byWave = new Map<number, string[]>();
  for (const id of input.ids) {
    const wave = waves.get(id) ?? 0;
    byWave.set(wave, [...(byWave.get(wave) ?? []), id]);
  }
  return [...byWave.entries()].sort((a, b) => b[0] - a[0]).map(([, ids]) => ids);
}
