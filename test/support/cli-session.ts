/**
 * Long-running `kro` commands under test (`kro demo`, `kro dev`): spawn the built CLI with pipes
 * (so it is not on a terminal), collect its output, wait for a line, and check afterwards that
 * nothing it started survives it.
 */
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { eventually } from "./eventually.js";

const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

export interface CliSession {
  readonly child: ChildProcess;
  output(): string;
  /** Waits until the output matches (and fails early, with the output, if the command exits). */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGKILL if still running (test cleanup; the reaper then removes the cluster). */
  kill(): void;
}

export function startCli(args: readonly string[], options: { cwd?: string } = {}): CliSession {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    child,
    output: () => output,
    waitFor: (pattern, timeoutMs) =>
      eventually(
        () => {
          const match = pattern.exec(output);
          if (match !== null) return match;
          assert.equal(child.exitCode, null, `kro ${args.join(" ")} exited early:\n${output}`);
          return assert.fail(`no match for ${String(pattern)} yet; output so far:\n${output}`);
        },
        { timeout: timeoutMs, interval: 250 },
      ),
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once("exit", resolve));
}

/** kubectl against a given kubeconfig (not the shared test cluster's); rejects with stderr on failure. */
export function kubectlWith(kubeconfig: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("kubectl", ["--kubeconfig", kubeconfig, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`kubectl ${args.join(" ")}: exit ${String(code)}: ${err}`));
    });
  });
}

/** PIDs of live processes whose command line mentions `text` (e.g. a cluster's state dir). Linux /proc. */
export function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

const execFileAsync = promisify(execFile);

/** Runs a short `kro` command to its end; a failure throws with the command and its output. */
export async function runKro(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(process.execPath, [CLI, ...args], {
      maxBuffer: 16 * 1024 * 1024,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
  } catch (error) {
    const { stderr = "", stdout = "" } = error as { stderr?: string; stdout?: string };
    throw new Error(`kro ${args.join(" ")} failed:\n${stderr}${stdout}`, { cause: error });
  }
}

/** Runs a short `kro` command to its end and says how it ended (for commands whose exit status means something). */
export function kroExit(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}
