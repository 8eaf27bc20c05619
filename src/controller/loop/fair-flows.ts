/**
 * Fair shares of the workers between flows of work (for instances: their namespace, then their
 * RGD within it), in the spirit of the API server's Priority and Fairness: one tenant's many
 * expensive keys cannot hold the workers while another tenant's cheap keys wait.
 *
 * A flow is a path of names; every key of one queue has a path of the same length. The next key
 * comes from the flow that has used the least work lately, level by level (the namespace that
 * used least, then its RGD that used least). Work is what a key costs a worker: the time from
 * its hand-out to its done, charged to every level of its path. Usage decays with a half-life,
 * so it measures a recent window, never a whole lifetime; a key in flight counts as it runs.
 * It is work-conserving: a flow alone gets every worker; it gives way only to flows that used
 * less. Ties go to the flow served longest ago (so workers taking keys at one instant spread over
 * flows of equal usage). Pure: time is passed in, nothing is scheduled.
 */

/** Usage halves in this time: the window in which a flow's work counts against it. */
export const USAGE_HALF_LIFE_MS = 10_000;
/** Usage (ms) below which a flow with nothing waiting or in flight is forgotten (a few minutes after its last key). */
const FORGET_BELOW_MS = 0.01;

class FlowNode<L> {
  readonly children = new Map<string, FlowNode<L>>();
  /** Decayed usage as of `at`. */
  private usage = 0;
  private at = 0;
  private running = 0;
  /** Sum of the start times of the keys in flight (their elapsed time is running × now − this). */
  private startedSum = 0;
  lastPicked = 0;

  constructor(readonly leaf: L | undefined) {}

  used(now: number): number {
    return this.decayed(now) + this.running * now - this.startedSum;
  }

  start(now: number): void {
    this.running++;
    this.startedSum += now;
  }

  finish(startedAt: number, now: number): void {
    if (this.running === 0) return; // forgotten meanwhile (the queue shut down)
    this.running--;
    this.startedSum -= startedAt;
    this.usage = this.decayed(now) + Math.max(0, now - startedAt);
    this.at = now;
  }

  /** Nothing in flight and usage forgotten: the node may be dropped once nothing waits in it. */
  idle(now: number): boolean {
    return this.running === 0 && this.decayed(now) < FORGET_BELOW_MS;
  }

  private decayed(now: number): number {
    if (this.usage === 0) return 0;
    return this.usage * 2 ** (-Math.max(0, now - this.at) / USAGE_HALF_LIFE_MS);
  }
}

export class FairFlows<L> {
  private readonly root: FlowNode<L>;
  private picks = 0;

  constructor(
    private readonly depth: number,
    private readonly makeLeaf: () => L,
  ) {
    this.root = new FlowNode(depth === 0 ? makeLeaf() : undefined);
  }

  /** The leaf of a path (created when new). */
  leaf(path: readonly string[]): L {
    const { leaf } = this.node(path);
    if (leaf === undefined) throw new Error("a flow's leaf is made with its node");
    return leaf;
  }

  /**
   * The leaf to take the next key from: among flows with waiting work (`hasWork`, which may
   * drop stale entries of a leaf), the least used at each level. Flows with nothing waiting,
   * nothing in flight and no recent usage are forgotten on the way.
   */
  pick(now: number, hasWork: (leaf: L) => boolean): L | undefined {
    const working = new Map<FlowNode<L>, boolean>();
    const has = (node: FlowNode<L>): boolean => {
      let known = working.get(node);
      if (known === undefined) {
        known = node.leaf !== undefined ? hasWork(node.leaf) : [...node.children.values()].some(has);
        working.set(node, known);
      }
      return known;
    };
    const trail: FlowNode<L>[] = [];
    let node = this.root;
    while (node.leaf === undefined) {
      let best: FlowNode<L> | undefined;
      let bestUsed = Infinity;
      for (const [name, child] of node.children) {
        if (!has(child)) {
          if (this.forgettable(child, now)) node.children.delete(name);
          continue;
        }
        const used = child.used(now);
        if (best === undefined || used < bestUsed || (used === bestUsed && child.lastPicked < best.lastPicked)) {
          best = child;
          bestUsed = used;
        }
      }
      if (best === undefined) return undefined;
      trail.push(best);
      node = best;
    }
    if (!has(node)) return undefined;
    const pick = ++this.picks;
    for (const picked of trail) picked.lastPicked = pick;
    return node.leaf;
  }

  /** A flow without waiting work: forgotten once nothing of it runs or counts any more (below too). */
  private forgettable(node: FlowNode<L>, now: number): boolean {
    for (const [name, child] of node.children) if (this.forgettable(child, now)) node.children.delete(name);
    return node.children.size === 0 && node.idle(now);
  }

  /** A key of this path was handed to a worker. */
  start(path: readonly string[], now: number): void {
    for (const node of this.along(path)) node.start(now);
  }

  /** A key of this path that started at `startedAt` is done: its time is charged to every level. */
  finish(path: readonly string[], startedAt: number, now: number): void {
    for (const node of this.along(path)) node.finish(startedAt, now);
  }

  /** Each level's recent usage along a path (diagnostics and tests). */
  usage(path: readonly string[], now: number): number[] {
    return this.along(path).map((node) => node.used(now));
  }

  clear(): void {
    this.root.children.clear();
  }

  private node(path: readonly string[]): FlowNode<L> {
    return this.along(path).at(-1) ?? this.root;
  }

  /** The nodes of a path below the root, created when new. */
  private along(path: readonly string[]): FlowNode<L>[] {
    if (path.length !== this.depth) throw new Error(`flow path ${JSON.stringify(path)} is not ${this.depth} long`);
    const nodes: FlowNode<L>[] = [];
    let node = this.root;
    path.forEach((name, level) => {
      let child = node.children.get(name);
      if (child === undefined) {
        child = new FlowNode(level === this.depth - 1 ? this.makeLeaf() : undefined);
        node.children.set(name, child);
      }
      nodes.push(child);
      node = child;
    });
    return nodes;
  }
}
