/**
 * Retries an assertion until it passes or the timeout expires — instead of sleeping. The last
 * failure is rethrown (with how long we waited) so a timeout says what was still wrong.
 */
export interface EventuallyOptions {
  readonly timeout?: number;
  readonly interval?: number;
}

export async function eventually<T>(assertion: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const timeout = options.timeout ?? 30_000;
  const interval = options.interval ?? 200;
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() >= deadline) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`eventually: still failing after ${timeout} ms: ${reason}`, { cause: error });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
