/**
 * Comparisons of cel-go's standard library that cel-js 8 lacks: ordering of bytes (lexicographic,
 * unsigned). (`in` across numeric types cannot be added this way: an overload such as
 * `uint in list<int>` makes cel-js' `dyn in list<int>` ambiguous at run time.)
 */
import type { CelEnvironment } from "../lib-support.js";

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function registerComparisonsLibrary(env: CelEnvironment): void {
  env.registerOperator("bytes < bytes", (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) < 0);
  env.registerOperator("bytes <= bytes", (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) <= 0);
  env.registerOperator("bytes > bytes", (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) > 0);
  env.registerOperator("bytes >= bytes", (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) >= 0);
}
