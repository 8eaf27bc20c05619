/**
 * An evaluation stopped by its time limit is not like a type error: whether it fits depends on
 * more than the instance — the first pass after a start also compiles every expression while the
 * JIT is cold, and a chart render may wait on a busy pool. So it is tried again once per
 * generation, after TIME_LIMIT_RETRY_MS; a second miss stays ERROR until the instance or its
 * RGD changes. A hostile instance thus costs at most two budgets per generation.
 */

export const TIME_LIMIT_RETRY_MS = 30_000;

/** The words every evaluation deadline uses (CEL passes, template passes, chart renders). */
const TIME_LIMIT = /exceeded its time limit of \d+ ms/;

/**
 * When to look again at an instance whose pass ended with `error`: TIME_LIMIT_RETRY_MS for the
 * first time-limit miss of this generation (remembered in `retried`, instance key → generation),
 * otherwise undefined.
 */
export function timeLimitRetry(
  retried: Map<string, number>,
  key: string,
  generation: number,
  error: string | undefined,
): number | undefined {
  if (error === undefined || !TIME_LIMIT.test(error)) return undefined;
  if (retried.get(key) === generation) return undefined;
  retried.set(key, generation);
  return TIME_LIMIT_RETRY_MS;
}
