// Progress lines on stderr (the table goes to stdout): elapsed time since the run started.
const started = Date.now();
let quiet = false;

export function setQuiet(value) {
  quiet = value;
}

export function log(message) {
  if (!quiet) process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s] ${message}\n`);
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined; logs `describe()` every 5 s. */
export async function waitUntil(what, check, { timeoutMs, intervalMs = 100, describe } = {}) {
  const deadline = Date.now() + (timeoutMs ?? 1_800_000);
  let lastLog = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${Math.round((timeoutMs ?? 0) / 1000)}s waiting for ${what}${describe ? ` (${describe()})` : ""}`,
      );
    if (describe !== undefined && Date.now() - lastLog >= 5000) {
      lastLog = Date.now();
      log(`  waiting for ${what}: ${describe()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Runs `fn` over `items` with at most `concurrency` in flight; rejects on the first failure. */
export async function pool(items, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
