/**
 * Work that must never run concurrently with itself (the applier and the board of `kro dev`):
 * each piece runs after the previous one; a failure is reported and does not stop the next.
 */
export class SerialWork {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly onError: (error: unknown) => void) {}

  enqueue(work: () => Promise<void>): void {
    this.tail = this.tail.then(work).catch(this.onError);
  }

  /** Resolves when everything enqueued so far has run. */
  drained(): Promise<void> {
    return this.tail;
  }
}
