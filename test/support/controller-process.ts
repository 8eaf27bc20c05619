/**
 * The controller as users run it — `kro-ts controller` in its own process, with a kubeconfig of
 * our choosing (e.g. a ServiceAccount's token) — as opposed to test/support/controller.ts, which
 * runs it in the test process with the admin's credentials. Its output is kept for assertions
 * and for the failure message; KRO_TEST_LOG_FILE=/tmp/x.log also copies it there.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../src/deploy/index.js";

const CLI = path.join(REPO_ROOT, "dist/src/cli/main.js");

export interface ControllerProcess {
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr, text log format). */
  output(): string;
  /** Still running (it has not exited on its own or by our signal). */
  alive(): boolean;
  /** SIGTERM, then how it ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL (a crash at an arbitrary moment: no cleanup runs), then wait until it is gone. */
  kill(): Promise<void>;
}

export async function startControllerProcess(
  kubeconfig: string,
  extraArgs: readonly string[] = [],
): Promise<ControllerProcess> {
  const args = [
    CLI,
    "controller",
    "--kubeconfig",
    kubeconfig,
    "--metrics-bind-address",
    "0",
    "--health-probe-bind-address",
    "0",
    "--log-format",
    "text",
    "--log-level",
    "debug",
    ...extraArgs,
  ];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const logFile = process.env.KRO_TEST_LOG_FILE;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (logFile !== undefined) appendFileSync(logFile, chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
  });
  let running = true;
  void exited.then(() => {
    running = false;
  });
  // Ready once its RGD and CRD informers synced; fail fast when it exits first.
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the controller did not start within 30s:\n${output}`));
    }, 30_000);
    const check = () => {
      if (!output.includes("controller started")) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the controller exited (code ${String(code)}, signal ${String(signal)}) before it started:\n${output}`,
        ),
      );
    });
  });
  try {
    await started;
  } catch (error) {
    child.kill("SIGKILL"); // a no-op when it already exited
    throw error;
  }
  if (child.pid === undefined) throw new Error("the controller process has no pid");
  const pid = child.pid;
  return {
    pid,
    output: () => output,
    alive: () => running,
    async stop() {
      if (running) child.kill("SIGTERM");
      const killer = setTimeout(() => {
        if (running) child.kill("SIGKILL");
      }, 15_000);
      const result = await exited;
      clearTimeout(killer);
      return result;
    },
    async kill() {
      if (running) child.kill("SIGKILL");
      await exited;
    },
  };
}
