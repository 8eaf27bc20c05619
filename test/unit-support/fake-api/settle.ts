/**
 * Lets every event the fake sent reach the informers: watch bodies deliver on later ticks, so a
 * test that wants caches current waits a few turns of the event loop (no timers, no wall clock).
 */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++)
    await new Promise<void>((resolve) => {
      setImmediate(resolve);
    });
}
