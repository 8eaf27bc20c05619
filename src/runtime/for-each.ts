/**
 * forEach expansion shared by both dialects: the cartesian product of the dimension lists, first
 * dimension outermost (kro §6.7), with the size limits checked before anything is built so a
 * runaway product fails fast instead of exhausting memory.
 */
export const DEFAULT_MAX_COLLECTION_SIZE = 1000;
export const DEFAULT_MAX_COLLECTION_DIMENSIONS = 10;

export interface Dimension {
  readonly name: string;
  readonly values: readonly unknown[];
}

export interface ProductLimits {
  readonly maxCollectionSize?: number;
  readonly maxCollectionDimensions?: number;
}

export type Product =
  | { readonly ok: true; readonly items: readonly Readonly<Record<string, unknown>>[] }
  | { readonly ok: false; readonly error: string };

export function cartesianProduct(dimensions: readonly Dimension[], limits: ProductLimits = {}): Product {
  const maxDimensions = limits.maxCollectionDimensions ?? DEFAULT_MAX_COLLECTION_DIMENSIONS;
  const maxSize = limits.maxCollectionSize ?? DEFAULT_MAX_COLLECTION_SIZE;
  if (dimensions.length > maxDimensions)
    return { ok: false, error: `forEach has ${dimensions.length} dimensions; the limit is ${maxDimensions}` };
  // Any empty dimension makes the product empty (and the collection ready with zero items).
  if (dimensions.some((d) => d.values.length === 0)) return { ok: true, items: [] };
  const size = dimensions.reduce((n, d) => n * d.values.length, 1);
  if (size > maxSize) {
    return {
      ok: false,
      error: `forEach produces ${size} items (${dimensions.map((d) => `${d.name}: ${d.values.length}`).join(" × ")}); the limit is ${maxSize}`,
    };
  }
  let items: Record<string, unknown>[] = [{}];
  for (const dimension of dimensions) {
    const next: Record<string, unknown>[] = [];
    for (const item of items) for (const value of dimension.values) next.push({ ...item, [dimension.name]: value });
    items = next;
  }
  return { ok: true, items };
}
