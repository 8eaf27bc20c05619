/**
 * One control-plane process: started in its own process group (so a terminal's Ctrl-C reaches
 * only us, and we stop components in order), its output in a log file, stopped with SIGTERM and
 * then SIGKILL. Its pid is recorded for the reaper, which cleans up if we die first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFile, open, readFile } from "node:fs/promises";

export class ManagedProcess {
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    readonly logFile: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        resolve();
      });
    });
  }

  static async start(
    name: string,
    binary: string,
    args: readonly string[],
    logFile: string,
    pidFile: string,
  ): Promise<ManagedProcess> {
    const log = await open(logFile, "a");
    try {
      const child = spawn(binary, args, { stdio: ["ignore", log.fd, log.fd], detached: true });
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", (error) => {
          reject(new Error(`cannot start ${name} (${binary}): ${error.message}`, { cause: error }));
        });
      });
      if (child.pid !== undefined) await appendFile(pidFile, `${child.pid}\n`);
      return new ManagedProcess(name, logFile, child);
    } finally {
      await log.close();
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Undefined while running; how it ended otherwise. */
  get exit(): string | undefined {
    if (this.exitInfo === undefined) return undefined;
    return this.exitInfo.signal === null ? `exit code ${this.exitInfo.code ?? "?"}` : `signal ${this.exitInfo.signal}`;
  }

  async logTail(lines = 15): Promise<string> {
    const text = await readFile(this.logFile, "utf8").catch(() => "");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.exitInfo !== undefined || this.child.pid === undefined) return;
    this.signalGroup("SIGTERM");
    const timer = setTimeout(() => {
      this.signalGroup("SIGKILL");
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
    // Anything the component forked dies with its group.
    this.signalGroup("SIGKILL");
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }
}
