// Order statistics for samples: median and percentiles by nearest rank, spread as min/max.
/** @param {number[]} samples */
export function summarize(samples) {
  const sorted = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (sorted.length === 0) return { n: 0, median: null, p50: null, p99: null, min: null, max: null };
  const rank = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
  return {
    n: sorted.length,
    median: round(median),
    p50: round(rank(0.5)),
    p99: round(rank(0.99)),
    min: round(sorted[0]),
    max: round(sorted[sorted.length - 1]),
  };
}

export const round = (x, digits = 3) =>
  x === null || x === undefined ? x : Math.round(x * 10 ** digits) / 10 ** digits;

/** Median of a list of numbers (null when empty). */
export const median = (samples) => summarize(samples).median;
