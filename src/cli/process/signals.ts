/** Resolves on the first SIGINT or SIGTERM, so a command can shut down in order. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals): void => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
      resolve(signal);
    };
    process.on("SIGINT", handler);
    process.on("SIGTERM", handler);
  });
}
