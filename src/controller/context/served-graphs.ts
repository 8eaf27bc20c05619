/**
 * Which RGD serves which instance kind right now, with the last graph that compiled. An invalid
 * edit of an RGD never removes its entry: the last good graph keeps serving its instances.
 */
import type { CompiledGraph, ContainmentPolicy } from "../../graph/index.js";
import { labelMatches } from "../../api/index.js";

export interface InstanceKind {
  readonly apiVersion: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export interface ServedGraph {
  readonly rgdName: string;
  readonly rgdUid: string;
  /** metadata.generation of the RGD this graph was compiled from. */
  readonly generation: number;
  /** The GraphRevision that records this graph (absent only for a deleting RGD served from its current spec). */
  readonly revision?: number;
  readonly graph: CompiledGraph;
  /**
   * Only for an RGD with spec.rollout: the graph of every live GraphRevision (this one's included),
   * for instances the rollout has not moved yet (docs/design/rollouts.md). Absent otherwise: every
   * instance runs `graph`, as in kro.
   */
  readonly revisions?: ReadonlyMap<number, CompiledGraph>;
  readonly instance: InstanceKind;
  /** The RGD's namespace-containment and author-check opt-ins (annotations; see containment-guard.ts). */
  readonly containment?: ContainmentPolicy;
  /** Who the RGD records as its author: what its instances cause is bounded by their rights (write-gate.ts). */
  readonly author?: { readonly user: string; readonly groups: readonly string[] } | undefined;
}

export class ServedGraphs {
  private readonly byRgd = new Map<string, ServedGraph>();

  get(rgdName: string): ServedGraph | undefined {
    return this.byRgd.get(rgdName);
  }

  set(entry: ServedGraph): void {
    this.byRgd.set(entry.rgdName, entry);
  }

  delete(rgdName: string): ServedGraph | undefined {
    const entry = this.byRgd.get(rgdName);
    this.byRgd.delete(rgdName);
    return entry;
  }

  /** The RGD serving a group/kind, if any (a kind belongs to at most one RGD). */
  forKind(group: string, kind: string): ServedGraph | undefined {
    for (const entry of this.byRgd.values()) {
      if (entry.instance.group === group && entry.instance.kind === kind) return entry;
    }
    return undefined;
  }

  /** The served graph whose group and kind, as written into child labels, are these. */
  forKindLabels(group: string, kind: string): ServedGraph | undefined {
    for (const entry of this.byRgd.values()) {
      if (labelMatches(group, entry.instance.group) && labelMatches(kind, entry.instance.kind)) return entry;
    }
    return undefined;
  }

  all(): ServedGraph[] {
    return [...this.byRgd.values()];
  }
}

/** Work-queue key of one instance: the RGD that serves it plus namespace/name. */
export function instanceKey(rgdName: string, namespace: string | undefined, name: string): string {
  return JSON.stringify([rgdName, namespace ?? "", name]);
}

/** The work-queue key of an instance object served by `rgdName`. */
export function instanceKeyOf(rgdName: string, object: { metadata?: { namespace?: string; name?: string } }): string {
  return instanceKey(rgdName, object.metadata?.namespace, object.metadata?.name ?? "");
}

/**
 * An instance key's flow for fair sharing of the workers: its namespace, then its RGD within it
 * (loop/fair-flows.ts). Cluster-scoped instances share the flow "".
 */
export function instanceFlowOf(key: string): readonly [string, string] {
  const { rgdName, namespace } = parseInstanceKey(key);
  return [namespace ?? "", rgdName];
}

export function parseInstanceKey(key: string): { rgdName: string; namespace: string | undefined; name: string } {
  const [rgdName, namespace, name] = JSON.parse(key) as [string, string, string];
  return { rgdName, namespace: namespace === "" ? undefined : namespace, name };
}
