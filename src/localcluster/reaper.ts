/**
 * Watchdog for a crashed parent. Started detached by startLocalCluster; every half second it
 * checks that the parent still lives. When the parent is gone (SIGKILL, OOM, a crashed test
 * runner) it terminates every process listed in <stateDir>/pids and removes <stateDir>. When
 * <stateDir> disappears (a normal stop) it simply exits. With a third argument, the copy of the
 * admin kubeconfig the user asked for (`kro cluster up --kubeconfig`) goes too, as on a normal
 * stop — but only while it still holds this cluster's kubeconfig, so a file that a later
 * `cluster up` wrote to the same path is kept.
 *
 * Usage: node reaper.js <parentPid> <stateDir> [userKubeconfig]
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const [parentArg, stateDir, userKubeconfig] = process.argv.slice(2);
const parentPid = Number(parentArg);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function listedPids(dir: string): number[] {
  try {
    return readFileSync(path.join(dir, "pids"), "utf8")
      .split("\n")
      .map(Number)
      .filter((p) => p > 0);
  } catch {
    return [];
  }
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(-pid, signal);
    } catch {
      // gone already
    }
  }
}

/** The user's copy of the kubeconfig, when it is still a copy of the one in `dir`. */
function removeUserKubeconfig(dir: string, file: string): void {
  try {
    if (readFileSync(file, "utf8") === readFileSync(path.join(dir, "kubeconfig"), "utf8"))
      rmSync(file, { force: true });
  } catch {
    // never written, or gone already
  }
}

function cleanUp(dir: string): void {
  const pids = listedPids(dir).reverse();
  signalAll(pids, "SIGTERM");
  const deadline = Date.now() + 5000;
  const poll = setInterval(() => {
    if (pids.every((pid) => !alive(pid)) || Date.now() > deadline) {
      clearInterval(poll);
      signalAll(pids, "SIGKILL");
      if (userKubeconfig !== undefined) removeUserKubeconfig(dir, userKubeconfig);
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  }, 100);
}

if (stateDir === undefined || !Number.isInteger(parentPid) || parentPid <= 0) {
  process.stderr.write("usage: reaper <parentPid> <stateDir> [userKubeconfig]\n");
  process.exit(2);
} else {
  const dir = stateDir;
  const timer = setInterval(() => {
    if (!existsSync(dir)) {
      clearInterval(timer);
      return;
    }
    if (!alive(parentPid)) {
      clearInterval(timer);
      cleanUp(dir);
    }
  }, 500);
}
