/**
 * Progress for long work (a cold control-plane build takes minutes): on a terminal one line
 * rewritten in place with the elapsed time; elsewhere (CI, pipes) plain lines, plus a heartbeat
 * every 30 s so that a silent build never looks hung.
 */
export interface Progress {
  step(message: string): void;
  done(message: string): void;
  fail(): void;
}

const HEARTBEAT_MS = 30_000;

function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = Date.now();
  let current = "";
  let lastPrinted = Date.now();
  const interactive = stream.isTTY;
  const render = (): void => {
    const line = `${current} (${formatElapsed(Date.now() - started)})`;
    if (interactive) stream.write(`\r\x1b[2K${line}`);
    else stream.write(`${line}\n`);
    lastPrinted = Date.now();
  };
  const timer = setInterval(
    () => {
      if (current !== "" && (interactive || Date.now() - lastPrinted >= HEARTBEAT_MS)) render();
    },
    interactive ? 1000 : 5000,
  );
  timer.unref();
  const finish = (): void => {
    clearInterval(timer);
    if (interactive && current !== "") stream.write("\r\x1b[2K");
  };
  return {
    step(message) {
      if (interactive && current !== "") stream.write("\n");
      current = message;
      render();
    },
    done(message) {
      finish();
      stream.write(`${message} (${formatElapsed(Date.now() - started)})\n`);
    },
    fail() {
      finish();
    },
  };
}
