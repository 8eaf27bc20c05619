/**
 * Shares informers: one per resource type, namespace, selectors and metadata-only mode, started
 * by the first user and stopped when the last one releases it.
 */
import { Informer, type InformerOptions, type InformerSource } from "./informer.js";
import { objectKey } from "./store.js";
import type { KubeObject } from "./types.js";

export interface InformerLease<T extends KubeObject> {
  readonly informer: Informer<T>;
  /** Gives the informer back; the last release stops it. Idempotent. */
  release(): Promise<void>;
}

export function informerKey(o: InformerOptions): string {
  return JSON.stringify([
    o.apiVersion,
    o.kind,
    o.namespace ?? "",
    o.labelSelector ?? "",
    o.fieldSelector ?? "",
    o.metadataOnly === true,
    ...(o.variant === undefined ? [] : [o.variant]),
  ]);
}

export class InformerManager {
  private readonly shared = new Map<string, { informer: Informer; users: number }>();

  /** `defaults` apply to every informer this manager starts (e.g. a transform), unless the caller sets them. */
  constructor(
    private readonly client: InformerSource,
    private readonly defaults: Pick<InformerOptions, "transform"> = {},
  ) {}

  get size(): number {
    return this.shared.size;
  }

  /** What runs now: each informer's options (for health pages and tests). */
  running(): InformerOptions[] {
    return [...this.shared.values()].map((e) => e.informer.options);
  }

  /**
   * Returns the shared informer for these options, started. Indexers and timeouts of the first
   * user win; users needing their own indexers should build their own informer.
   */
  acquire<T extends KubeObject = KubeObject>(options: InformerOptions): InformerLease<T> {
    const key = informerKey(options);
    let entry = this.shared.get(key);
    if (entry === undefined) {
      entry = { informer: new Informer(this.client, { ...this.defaults, ...options }).start(), users: 0 };
      this.shared.set(key, entry);
    }
    entry.users++;
    const held = entry;
    let released = false;
    return {
      informer: held.informer as unknown as Informer<T>,
      release: async () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.users === 0 && this.shared.get(key) === held) {
          this.shared.delete(key);
          await held.informer.stop();
        }
      },
    };
  }

  /** Each running informer's options and how many objects its store holds (cache-size metrics). */
  cached(): { options: InformerOptions; size: number }[] {
    return [...this.shared.values()].map((e) => ({ options: e.informer.options, size: e.informer.store.size }));
  }

  /** The objects every running informer of a kind caches now, each once (introspection and tests). */
  cachedObjects(apiVersion: string, kind: string): KubeObject[] {
    const seen = new Map<string, KubeObject>();
    for (const { informer } of this.shared.values()) {
      if (informer.options.apiVersion !== apiVersion || informer.options.kind !== kind) continue;
      for (const object of informer.store.list()) seen.set(objectKey(object), object);
    }
    return [...seen.values()];
  }

  stopAll(): void {
    for (const { informer } of this.shared.values()) void informer.stop();
    this.shared.clear();
  }
}
