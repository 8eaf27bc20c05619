/** `--workers` and `--max-workers`: the floor and the ceiling of instance reconciles in flight. */
import { positiveInteger } from "../inputs/index.js";

/** The ceiling when --max-workers is not given: 32 fan-out reconciles in flight hold a few MB. */
export const DEFAULT_MAX_WORKERS = 32;

export function maxWorkersFlag(flags: { readonly workers: string; readonly maxWorkers?: string | undefined }): number {
  const workers = positiveInteger("--workers", flags.workers);
  if (flags.maxWorkers === undefined) return Math.max(DEFAULT_MAX_WORKERS, workers);
  const max = positiveInteger("--max-workers", flags.maxWorkers);
  if (max < workers) throw new Error(`--max-workers (${max}) must be at least --workers (${workers})`);
  return max;
}
