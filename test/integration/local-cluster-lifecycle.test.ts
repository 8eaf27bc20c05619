// `kro cluster up` as a user runs it: ready line, a kubeconfig that works, and nothing left
// behind — neither after Ctrl-C nor after the parent is killed outright (the reaper's job).
// These start their own minimal clusters on purpose: the lifecycle itself is under test.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
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
  const child = spawn(process.execPath, [CLI, "cluster", "up", "--minimal", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const kubeconfig = await eventually(
    () => {
      assert.equal(child.exitCode, null, `kro cluster up exited early:\n${output}`);
      const match = /^Ready\. kubeconfig: (\S+)$/m.exec(output);
      assert.ok(match?.[1], "no ready line yet");
      return match[1];
    },
    { timeout: 120_000 },
  );
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
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once("exit", resolve));
}

async function kubectlNamespaces(kubeconfig: string): Promise<string> {
  const child = spawn("kubectl", ["--kubeconfig", kubeconfig, "get", "namespaces", "-o", "name"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await exited(child);
  return out;
}

async function kubectlOut(kubeconfig: string, args: readonly string[]): Promise<string> {
  const child = spawn("kubectl", ["--kubeconfig", kubeconfig, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  assert.equal(await exited(child), 0, `kubectl ${args.join(" ")}`);
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
    await eventually(
      () => {
        for (const pid of running.pids) assert.equal(isAlive(pid), false, `process ${pid} orphaned`);
        assert.equal(existsSync(running.stateDir), false, "state dir removed by the reaper");
      },
      { timeout: 30_000 },
    );
  });

  it("after a kill -9 the reaper removes the --kubeconfig file too, unless another cluster wrote it since", async () => {
    const extraDir = await mkdtemp(path.join(tmpdir(), "kro-kubeconfig-"));
    const extraKubeconfig = path.join(extraDir, "config");
    try {
      const first = await clusterUp(["--kubeconfig", extraKubeconfig]);
      first.child.kill("SIGKILL");
      await exited(first.child);
      await eventually(
        () => {
          assert.equal(existsSync(first.stateDir), false, "state dir removed by the reaper");
          assert.equal(existsSync(extraKubeconfig), false, "--kubeconfig file removed by the reaper");
        },
        { timeout: 30_000 },
      );

      // The same path again, then overwritten by someone else before the kill: that file is kept.
      const second = await clusterUp(["--kubeconfig", extraKubeconfig]);
      await writeFile(extraKubeconfig, "written by someone else\n");
      second.child.kill("SIGKILL");
      await exited(second.child);
      await eventually(
        () => {
          assert.equal(existsSync(second.stateDir), false, "state dir removed by the reaper");
        },
        { timeout: 30_000 },
      );
      assert.equal(readFileSync(extraKubeconfig, "utf8"), "written by someone else\n");
    } finally {
      await rm(extraDir, { recursive: true, force: true });
    }
  });

  it("--clusters 3: two member clusters registered in the hub, each served, all stopped on SIGINT", async () => {
    const running = await clusterUp(["--clusters", "3"]);
    const members = [
      ...running
        .output()
        .matchAll(/^ {2}(eu-west|us-east): Kubernetes \S+ at https:\/\/127\.0\.0\.1:\d+, kubeconfig (\S+)$/gm),
    ].map((m) => ({ name: m[1] ?? "", kubeconfig: m[2] ?? "" }));
    assert.deepEqual(
      members.map((m) => m.name),
      ["eu-west", "us-east"],
      running.output(),
    );
    const memberPids = members.map((m) =>
      readFileSync(path.join(path.dirname(m.kubeconfig), "pids"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map(Number),
    );
    for (const member of members)
      assert.match(await kubectlNamespaces(member.kubeconfig), /namespace\/default/, `${member.name} serves kubectl`);
    // Registered as a platform team registers a real cluster: a labelled kubeconfig Secret in the hub.
    const secrets = JSON.parse(
      await kubectlOut(running.kubeconfig, [
        "get",
        "secrets",
        "-n",
        "kro-system",
        "-l",
        "kro.run/cluster-name",
        "-o",
        "json",
      ]),
    ) as { items: { metadata: { labels: Record<string, string> }; data: Record<string, string> }[] };
    assert.deepEqual(secrets.items.map((s) => s.metadata.labels["kro.run/cluster-name"]).sort(), [
      "eu-west",
      "us-east",
    ]);
    for (const secret of secrets.items) {
      const member = members.find((m) => m.name === secret.metadata.labels["kro.run/cluster-name"]);
      assert.equal(
        Buffer.from(secret.data.value ?? "", "base64").toString("utf8"),
        readFileSync(member?.kubeconfig ?? "", "utf8"),
        "the Secret holds the member's kubeconfig",
      );
    }
    running.child.kill("SIGINT");
    assert.equal(await exited(running.child), 0, running.output());
    assert.match(running.output(), /local clusters stopped/);
    for (const pid of [...running.pids, ...memberPids.flat()])
      assert.equal(isAlive(pid), false, `process ${pid} still running`);
    for (const member of members)
      assert.equal(existsSync(path.dirname(member.kubeconfig)), false, `${member.name}'s state dir removed`);
  });

  it("rejects --clusters outside 1..8 before starting anything", async () => {
    const child = spawn(process.execPath, [CLI, "cluster", "up", "--clusters", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    assert.notEqual(await exited(child), 0);
    assert.match(stderr, /--clusters: expected a whole number from 1 \(the hub alone\) to 8, got "0"/);
  });

  it("rejects an unsupported --kube-version with the supported list", async () => {
    const child = spawn(process.execPath, [CLI, "cluster", "up", "--kube-version", "1.20"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    assert.equal(await exited(child), 1);
    assert.match(stderr, /unsupported Kubernetes version "1\.20": supported versions are 1\.31, 1\.32, 1\.33/);
  });
});
