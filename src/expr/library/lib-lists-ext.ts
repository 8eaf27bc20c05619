/**
 * cel-go ext.Lists: slice, flatten, sort, distinct, reverse, first/last and lists.range (sortBy is
 * a macro, in lib-comprehensions.ts). Sizes are charged to the cost meter before allocating.
 */
import { compareValues, valuesEqual } from "../compare.js";
import { LibraryError, type CelEnvironment, type LibraryContext } from "../lib-support.js";
import { Optional } from "@marcbachmann/cel-js";

export function registerListsExtLibrary(env: CelEnvironment, lib: LibraryContext, listsNamespace: string): void {
  env.registerFunction("list<A>.slice(int, int): list<A>", (l: unknown[], from: bigint, to: bigint) => {
    if (from < 0n || to < 0n)
      throw new LibraryError("invalid_argument", `cannot slice(${from}, ${to}), negative indexes not supported`);
    if (from > to)
      throw new LibraryError(
        "invalid_argument",
        `cannot slice(${from}, ${to}), start index must be less than or equal to end index`,
      );
    if (to > BigInt(l.length))
      throw new LibraryError("invalid_argument", `cannot slice(${from}, ${to}), list is length ${l.length}`);
    lib.charge(Number(to - from));
    return l.slice(Number(from), Number(to));
  });
  env.registerFunction("list.flatten(): list", (l: unknown[]) => flatten(l, 1, lib));
  env.registerFunction("list.flatten(int): list", (l: unknown[], depth: bigint) => {
    if (depth < 0n) throw new LibraryError("invalid_argument", "level must be non-negative");
    return flatten(l, Number(depth), lib);
  });
  env.registerFunction("list<A>.sort(): list<A>", (l: unknown[]) => {
    lib.charge(l.length * Math.max(1, Math.ceil(Math.log2(l.length + 1))));
    return [...l].sort(compareValues);
  });
  env.registerFunction("list<A>.distinct(): list<A>", (l: unknown[]) => {
    lib.charge(l.length * l.length);
    const out: unknown[] = [];
    for (const x of l) if (!out.some((y) => valuesEqual(x, y))) out.push(x);
    return out;
  });
  env.registerFunction("list<A>.reverse(): list<A>", (l: unknown[]) => {
    lib.charge(l.length);
    return [...l].reverse();
  });
  env.registerFunction("list<A>.first(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? Optional.none() : Optional.of(l[0]),
  );
  env.registerFunction("list<A>.last(): optional<A>", (l: unknown[]) =>
    l.length === 0 ? Optional.none() : Optional.of(l[l.length - 1]),
  );
  env.registerFunction(`${listsNamespace}.range(int): list<int>`, (_ns: unknown, n: bigint) => {
    if (n < 0n) throw new LibraryError("invalid_argument", "lists.range: size must be non-negative");
    lib.charge(Number(n));
    return Array.from({ length: Number(n) }, (_, i) => BigInt(i));
  });
}

function flatten(l: readonly unknown[], depth: number, lib: LibraryContext): unknown[] {
  const out: unknown[] = [];
  for (const x of l) {
    lib.charge(1);
    if (Array.isArray(x) && depth > 0) out.push(...flatten(x, depth - 1, lib));
    else out.push(x);
  }
  return out;
}
