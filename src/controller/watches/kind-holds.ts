/**
 * Which managed child kinds are needed right now, counted per RGD: the kinds of the graph each
 * RGD serves, plus — while a reconcile of that RGD is still running — the kinds of a graph it no
 * longer serves (an RGD deleted or changed under a running reconcile keeps its informers until
 * that reconcile ends). Whatever no one needs is released by the caller (ChildWatches). Pure.
 */
export class KindHolds {
  /** RGD → the graph it serves and that graph's kinds. */
  private readonly retained = new Map<string, { readonly graph: object; readonly kinds: ReadonlySet<string> }>();
  /** RGD → kinds used by reconciles of a graph it no longer serves (kept while any is running). */
  private readonly lingering = new Map<string, Set<string>>();
  private readonly inFlight = new Map<string, number>();

  /** The RGD now serves `graph` with these kinds; `undefined`: it serves nothing any more. */
  retain(rgd: string, served: { graph: object; kinds: Iterable<string> } | undefined): void {
    const previous = this.retained.get(rgd);
    if (previous !== undefined && this.running(rgd)) this.linger(rgd, previous.kinds);
    if (served === undefined) this.retained.delete(rgd);
    else this.retained.set(rgd, { graph: served.graph, kinds: new Set(served.kinds) });
    if (!this.running(rgd)) this.lingering.delete(rgd);
  }

  /** A reconcile runs `graph` of this RGD and needs these kinds (a stale graph's kinds linger). */
  use(rgd: string, graph: object, kinds: Iterable<string>): void {
    if (this.retained.get(rgd)?.graph === graph) return;
    this.linger(rgd, kinds);
  }

  begin(rgd: string): void {
    this.inFlight.set(rgd, (this.inFlight.get(rgd) ?? 0) + 1);
  }

  /** A reconcile of this RGD ended; true when that may have freed kinds (the caller sweeps). */
  end(rgd: string): boolean {
    const left = (this.inFlight.get(rgd) ?? 1) - 1;
    if (left > 0) {
      this.inFlight.set(rgd, left);
      return false;
    }
    this.inFlight.delete(rgd);
    return this.lingering.delete(rgd);
  }

  needed(): Set<string> {
    const kinds = new Set<string>();
    for (const { kinds: held } of this.retained.values()) for (const k of held) kinds.add(k);
    for (const held of this.lingering.values()) for (const k of held) kinds.add(k);
    return kinds;
  }

  private running(rgd: string): boolean {
    return (this.inFlight.get(rgd) ?? 0) > 0;
  }

  private linger(rgd: string, kinds: Iterable<string>): void {
    let set = this.lingering.get(rgd);
    if (set === undefined) this.lingering.set(rgd, (set = new Set()));
    for (const k of kinds) set.add(k);
  }
}
