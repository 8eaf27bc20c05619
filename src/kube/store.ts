/**
 * The informer's store: the current objects by namespace/name, plus named indexes (e.g. by
 * owner UID or label value) kept in step with every change. Read-only to everyone but the
 * informer that owns it.
 */
import type { KubeObject } from "./types.js";

/** Returns the index values of an object (an object may have several, or none). */
export type IndexFunc<T> = (object: T) => readonly string[];

export function objectKey(object: KubeObject): string {
  const ns = object.metadata?.namespace;
  const name = object.metadata?.name ?? "";
  return ns === undefined || ns === "" ? name : `${ns}/${name}`;
}

export class Store<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    for (const name of Object.keys(indexers)) this.indexes.set(name, new Map());
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  getByName(namespace: string | undefined, name: string): T | undefined {
    return this.items.get(namespace === undefined || namespace === "" ? name : `${namespace}/${name}`);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  list(): T[] {
    return [...this.items.values()];
  }

  /** Objects whose index `indexName` has `value`. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (index === undefined) throw new Error(`store has no index ${JSON.stringify(indexName)}`);
    return [...(index.get(value) ?? [])].flatMap((key) => {
      const item = this.items.get(key);
      return item === undefined ? [] : [item];
    });
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const old = this.items.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.items.set(key, object);
    this.index(key, object);
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private index(key: string, object: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indexes.get(name);
      for (const value of fn(object)) {
        let keys = index?.get(value);
        if (keys === undefined) {
          keys = new Set();
          index?.set(value, keys);
        }
        keys.add(key);
      }
    }
  }

  private unindex(key: string, object: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indexes.get(name);
      for (const value of fn(object)) {
        const keys = index?.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index?.delete(value);
      }
    }
  }
}

/**
 * What a fresh list says that an older cache of the same objects may never have delivered: the
 * objects new to it or at another resourceVersion, and those it no longer has. A cache replaced
 * by a new list (another selection) is released once the new one is in; a watch event still on
 * its way to the old cache is then lost — the change it carried is in the new list, silently.
 */
export function relistDifference<T extends KubeObject>(older: Store<T>, newer: Store<T>): { changed: T[]; gone: T[] } {
  const changed = newer
    .list()
    .filter((object) => older.get(objectKey(object))?.metadata?.resourceVersion !== object.metadata?.resourceVersion);
  const gone = older.list().filter((object) => newer.get(objectKey(object)) === undefined);
  return { changed, gone };
}
