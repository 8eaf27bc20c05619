/**
 * A busy node, on purpose: stops a process (SIGSTOP) for `stopMs` after every `runMs` it runs,
 * until `stop()`, which leaves it running. Its threads all stop together, as when other processes
 * have the CPU: wall time passes, the process's own CPU time does not.
 */
export function starve(pid: number, runMs: number, stopMs: number): { stop(): Promise<void> } {
  const state = { on: true };
  const loop = (async () => {
    while (state.on) {
      await new Promise((resolve) => setTimeout(resolve, runMs));
      process.kill(pid, "SIGSTOP");
      await new Promise((resolve) => setTimeout(resolve, stopMs));
      process.kill(pid, "SIGCONT");
    }
  })();
  return {
    async stop() {
      state.on = false;
      await loop;
    },
  };
}
