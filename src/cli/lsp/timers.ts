/**
 * Time as a port for the server: the debounce of diagnostics waits on these timers, so tests drive
 * it in fake time instead of sleeping. A small copy of the idea in controller/clock, not an import:
 * `kro lsp` must not load the controller.
 */
export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * Runs the last work scheduled for a key once the key has been quiet for `delayMs`: a burst of
 * keystrokes compiles the document once, with its latest text.
 */
export class Debouncer {
  readonly #pending = new Map<string, unknown>();

  constructor(
    private readonly timers: Timers,
    private readonly delayMs: number,
  ) {}

  schedule(key: string, work: () => void): void {
    this.cancel(key);
    const handle = this.timers.set(() => {
      this.#pending.delete(key);
      work();
    }, this.delayMs);
    this.#pending.set(key, handle);
  }

  cancel(key: string): void {
    if (!this.#pending.has(key)) return;
    this.timers.clear(this.#pending.get(key));
    this.#pending.delete(key);
  }
}
