import { spawn } from "node:child_process";
import { appendFile } from "node:fs/promises";

export class CommandFailedError extends Error {
  override readonly name = "CommandFailedError";
}

export interface RunOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Every line the command prints is appended here, so a failed build can be diagnosed. */
  readonly logFile: string;
}

/** Runs a command to completion; resolves with its stdout, rejects with the tail of its output. */
export async function runCommand(command: string, args: readonly string[], options: RunOptions): Promise<string> {
  await appendFile(options.logFile, `\n$ ${command} ${args.join(" ")}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      output.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", (error) => {
      reject(new CommandFailedError(`cannot run ${command}: ${error.message}`, { cause: error }));
    });
    child.on("close", (code, signal) => {
      const all = Buffer.concat(output).toString("utf8");
      void appendFile(options.logFile, all).finally(() => {
        if (code === 0) {
          resolve(Buffer.concat(stdout).toString("utf8"));
          return;
        }
        const tail = all.trimEnd().split("\n").slice(-20).join("\n");
        const how = signal === null ? `exit code ${code ?? "?"}` : `signal ${signal}`;
        reject(
          new CommandFailedError(
            `${command} ${args.join(" ")} failed (${how}) in ${options.cwd}:\n${tail}\n(full log: ${options.logFile})`,
          ),
        );
      });
    });
  });
}
