/**
 * Strict parsing of the controller's numeric and duration flags: a bad value stops the command
 * with a message naming the flag, instead of a hot loop (`--resync-period 0`) or NaN timers.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "3s", "500ms", "1m", "1.5h", "1h30m", or plain milliseconds. */
export function parseDuration(value: string): number {
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    throw new Error(`invalid duration "${value}": use e.g. 500ms, 3s, 1m, 10h`);
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2] as keyof typeof UNIT_MS], 0);
}

/** A duration flag; zero only where it means "off". */
export function durationFlag(flag: string, value: string, options: { readonly allowZero?: boolean } = {}): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (error) {
    throw new Error(`${flag}: ${(error as Error).message}`, { cause: error });
  }
  if (!Number.isFinite(ms)) throw new Error(`${flag}: duration "${value}" is too large`);
  if (ms === 0 && options.allowZero !== true) throw new Error(`${flag} must be greater than 0, got "${value}"`);
  if (ms > 2_147_483_647) throw new Error(`${flag}: "${value}" is longer than the longest timer (about 24 days)`);
  return ms;
}

export function nonNegativeNumber(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new Error(`${flag} must be a non-negative number, got "${value}"`);
  return n;
}

export function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a whole number of at least 1, got "${value}"`);
  return n;
}

export function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw new Error(`${flag} must be a number above 0, got "${value}"`);
  return n;
}
