/**
 * An ObservedLookup over a plain set of objects: `kro render --observed` files, render's
 * `--assume-ready` loop (desired objects observed as themselves), and tests.
 */
import { identityKey, identityOf, matchesQuery } from "./identity.js";
import type { CollectionQuery, KubeJson, ObjectIdentity, ObservedLookup } from "./types.js";

export interface MemoryLookup extends ObservedLookup {
  /** Adds or replaces objects (by identity); objects without one are ignored. */
  put(...objects: readonly KubeJson[]): void;
  readonly size: number;
}

export function createMemoryLookup(objects: readonly KubeJson[] = []): MemoryLookup {
  const byKey = new Map<string, KubeJson>();
  const lookup: MemoryLookup = {
    get(identity: ObjectIdentity) {
      return byKey.get(identityKey(identity));
    },
    list(query: CollectionQuery) {
      return [...byKey.values()].filter((o) => matchesQuery(o, query));
    },
    put(...added) {
      for (const object of added) {
        const identity = identityOf(object);
        if (identity) byKey.set(identityKey(identity), object);
      }
    },
    get size() {
      return byKey.size;
    },
  };
  lookup.put(...objects);
  return lookup;
}
