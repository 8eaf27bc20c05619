// `kro cluster up` as a user runs it: ready line, a kubeconfig that works, and nothing left
// behind — neither after Ctrl-C nor after the parent is killed outright (the reaper's job).
// These start their own minimal clusters on purpose: the lifecycle itself is under test.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";

const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

interface Running {
  readonly child: ChildProcess;
  readonly kubeconfig: string;
  readonly stateDir: string;
  readonly pids: number[];
  output(): string;
}

async function clusterUp(extraArgs: readonly string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [CLI, "cluster", "up", "--minimal", ...extraArgs], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const kubeconfig = await eventually(() => {
    assert.equal(child.exitCode, null, `kro cluster up exited early:\n${output}`);
    const match = /^Ready\. kubeconfig: (\S+)$/m.exec(output);
    assert.ok(match?.[1], "no ready line yet");
    return match[1];
  }, { timeout: 120_000 });
  const config = JSON.parse(readFileSync(kubeconfig, "utf8")) as { clusters: { cluster: { server: string } }[] };
  assert.match(config.clusters[0]?.cluster.server ?? "", /^https:\/\/127\.0\.0\.1:\d+$/, "serves on loopback only");
  const stateDir = /^Component logs: (\S+)$/m.exec(output)?.[1] ?? assert.fail(`no logs line:\n${output}`);
  const pids = readFileSync(path.join(stateDir, "pids"), "utf8").split("\n").filter(Boolean).map(Number);
  return { child, kubeconfig, stateDir, pids, output: () => output };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once("exit", resolve));
}

async function kubectlNamespaces(kubeconfig: string): Promise<string> {
  const child = spawn("kubectl", ["--kubeconfig", kubeconfig, "get", "namespaces", "-o", "name"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await exited(child);
  return out;
}

describe("kro cluster up", () => {
  it("prints a ready line, serves kubectl, and on SIGINT stops every process and removes its files", async () => {
    const extraDir = await mkdtemp(path.join(tmpdir(), "kro-kubeconfig-"));
    const extraKubeconfig = path.join(extraDir, "config");
    try {
      const running = await clusterUp(["--kubeconfig", extraKubeconfig]);
      assert.ok(existsSync(extraKubeconfig), "--kubeconfig file written");
      assert.match(await kubectlNamespaces(extraKubeconfig), /namespace\/default/);
      assert.equal(running.pids.length, 2, "etcd and kube-apiserver");
      assert.ok(running.pids.every(isAlive));

      running.child.kill("SIGINT");
      assert.equal(await exited(running.child), 0, running.output());
      assert.match(running.output(), /local cluster stopped/);
      for (const pid of running.pids) assert.equal(isAlive(pid), false, `process ${pid} still running`);
      assert.equal(existsSync(running.stateDir), false, "state dir removed");
      assert.equal(existsSync(extraKubeconfig), false, "kubeconfig written for this cluster removed");
    } finally {
      await rm(extraDir, { recursive: true, force: true });
    }
  });

  it("leaves no orphaned etcd or apiserver when the parent is killed outright", async () => {
    const running = await clusterUp();
    running.child.kill("SIGKILL");
    await exited(running.child);
    await eventually(() => {
      for (const pid of running.pids) assert.equal(isAlive(pid), false, `process ${pid} orphaned`);
      assert.equal(existsSync(running.stateDir), false, "state dir removed by the reaper");
    }, { timeout: 30_000 });
  });

  it("rejects an unsupported --kube-version with the supported list", async () => {
    const child = spawn(process.execPath, [CLI, "cluster", "up", "--kube-version", "1.20"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    assert.equal(await exited(child), 1);
    assert.match(stderr, /unsupported Kubernetes version "1\.20": supported versions are 1\.31, 1\.32, 1\.33/);
  });
});
