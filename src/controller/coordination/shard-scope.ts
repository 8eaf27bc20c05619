/**
 * What a sharded replica caches (so that replicas share memory): the label selector its
 * instance and child informers use, built from the shards it holds. Pure: no I/O, no timers.
 *
 * The selector is `kro.run/shard notin (<shards held elsewhere>)`, not `in (<held>)`: a
 * Kubernetes `notin` also matches objects *without* the label and objects whose value is no
 * shard at all (garbage, or a shard of a larger count). So one watch per kind sees
 *  - the held shards' objects (the bulk),
 *  - strays: instances created a moment ago (labelled by their first reconcile, in the PATCH
 *    that adds the finalizer) and, after an upgrade from a release without the label, children
 *    not yet labelled (their next apply carries it). Strays leave every other replica's cache the
 *    moment they are labelled (the watch reports them deleted).
 * What it does not see: objects labelled with a valid shard held elsewhere — the holder of that
 * shard sees them, and corrects the label when it is wrong (the shard is a function of the
 * instance's identity; the label is only a filter, see docs/design/controller.md, "Sharded caches").
 */
import { LABELS } from "../../api/index.js";
import { shardOf } from "./shard-assignment.js";

export class ShardScope {
  private heldShards = new Set<number>();

  constructor(readonly shardCount: number) {}

  /** The shard an instance key belongs to (the only truth; labels follow it). */
  shardOf(key: string): number {
    return shardOf(key, this.shardCount);
  }

  /** The label value an instance of `key` and all its children carry. */
  labelOf(key: string): string {
    return String(this.shardOf(key));
  }

  /** The shard a label value names, or undefined when it names none (absent, garbage, out of range). */
  parse(value: string | undefined): number | undefined {
    if (value === undefined || !/^(0|[1-9]\d{0,3})$/.test(value)) return undefined;
    const shard = Number(value);
    return shard < this.shardCount ? shard : undefined;
  }

  /** Replaces the held set; true when it changed (the informers must be restarted). */
  set(held: Iterable<number>): boolean {
    const next = new Set([...held].filter((s) => Number.isInteger(s) && s >= 0 && s < this.shardCount));
    if (next.size === this.heldShards.size && [...next].every((s) => this.heldShards.has(s))) return false;
    this.heldShards = next;
    return true;
  }

  holds(shard: number): boolean {
    return this.heldShards.has(shard);
  }

  get held(): number[] {
    return [...this.heldShards].sort((a, b) => a - b);
  }

  /** The selector term for the current held set; undefined when every shard is held (no filter). */
  selector(): string | undefined {
    const elsewhere = Array.from({ length: this.shardCount }, (_, i) => i).filter((s) => !this.heldShards.has(s));
    return elsewhere.length === 0 ? undefined : `${LABELS.shard} notin (${elsewhere.join(",")})`;
  }
}

/** `base` and the scope's term joined (either may be absent). */
export function withShardSelector(base: string | undefined, scope: ShardScope | undefined): string | undefined {
  const term = scope?.selector();
  if (term === undefined) return base;
  return base === undefined || base === "" ? term : `${base},${term}`;
}
