/**
 * Honest failure: a controller that cannot start says why and exits non-zero (so Kubernetes
 * restarts it and the operator sees it), with or without leader election; bad flag values are
 * refused before anything starts.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../src/deploy/index.js";
import { serviceAccountKubeconfig } from "../support/service-account.js";
import { kubectl, testCluster } from "../support/test-cluster.js";
import { startControllerProcess } from "../support/controller-process.js";

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, "dist/src/cli/main.js");

async function controller(
  kubeconfig: string,
  args: readonly string[],
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [
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
        ...args,
      ],
      { timeout: timeoutMs },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (e.killed === true)
      throw new Error(`the controller did not exit within ${timeoutMs} ms:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    return { code: typeof e.code === "number" ? e.code : null, output: (e.stdout ?? "") + (e.stderr ?? "") };
  }
}

describe("controller start failures", { timeout: 120_000 }, () => {
  it("refuses zero, negative and garbage durations and unsafe lease timings before starting", async () => {
    const { kubeconfig } = testCluster();
    for (const [args, message] of [
      [["--resync-period", "0"], /--resync-period must be greater than 0/],
      [["--resync-period", "-1s"], /--resync-period: invalid duration "-1s"/],
      [["--instance-requeue-interval", "soon"], /--instance-requeue-interval: invalid duration "soon"/],
      [["--workers", "0"], /--workers must be a whole number of at least 1/],
      [
        ["--leader-elect", "--leader-elect-renew-deadline", "20s"],
        /leaseDuration \(15000 ms\) must be greater than renewDeadline \(20000 ms\)/,
      ],
    ] as const) {
      const { code, output } = await controller(kubeconfig, args);
      assert.equal(code, 1, `${args.join(" ")}: ${output}`);
      assert.match(output, message);
    }
  });

  it("--leader-elect creates its missing coordination namespace, or exits 1 naming it when it may not", async (t) => {
    const { kubeconfig: admin } = testCluster();
    const missing = `kro-coord-${randomBytes(3).toString("hex")}`;
    t.after(async () => {
      await kubectl(["delete", "namespace", missing, "--wait=false", "--ignore-not-found"]);
    });
    const leader = await startControllerProcess(admin, [
      "--leader-elect",
      "--leader-election-namespace",
      missing,
      "--leader-election-id",
      "coord-test",
      "--rgd-selector",
      `kro-ts.test/controller=${missing}`,
    ]);
    t.after(async () => {
      await leader.stop();
    });
    assert.match(leader.output(), /created the coordination namespace/);
    assert.equal(
      (
        await kubectl([
          "get",
          "namespace",
          missing,
          "-o",
          "jsonpath={.metadata.labels.app\\.kubernetes\\.io/managed-by}",
        ])
      ).trim(),
      "kro",
    );
    await kubectl([
      "wait",
      "-n",
      missing,
      "lease/coord-test",
      "--for=jsonpath={.spec.holderIdentity}",
      "--timeout=60s",
    ]);

    // May read Namespaces and nothing else: the missing one cannot be created.
    const ns = `coord-ro-${randomBytes(3).toString("hex")}`;
    await kubectl(["create", "namespace", ns]);
    t.after(async () => {
      await kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]);
    });
    await kubectl(["create", "serviceaccount", "kro", "-n", ns]);
    await kubectl(["create", "clusterrole", `${ns}-read-namespaces`, "--verb=get", "--resource=namespaces"]);
    t.after(async () => {
      await kubectl(["delete", "clusterrole", `${ns}-read-namespaces`, "--ignore-not-found"]);
    });
    await kubectl([
      "create",
      "clusterrolebinding",
      `${ns}-read-namespaces`,
      `--clusterrole=${ns}-read-namespaces`,
      `--serviceaccount=${ns}:kro`,
    ]);
    t.after(async () => {
      await kubectl(["delete", "clusterrolebinding", `${ns}-read-namespaces`, "--ignore-not-found"]);
    });
    const { kubeconfig } = await serviceAccountKubeconfig(t, ns, "kro");
    const absent = `kro-absent-${randomBytes(3).toString("hex")}`;
    for (const flags of [["--leader-elect"], ["--leader-elect", "--shards", "2"]]) {
      const { code, output } = await controller(kubeconfig, [...flags, "--leader-election-namespace", absent]);
      assert.equal(code, 1, output);
      assert.match(
        output,
        new RegExp(
          `${flags.includes("--shards") ? "--shards" : "--leader-elect"} needs the namespace \\\\?"${absent}\\\\?" for its Leases; it does not exist and the controller may not create it`,
        ),
      );
      assert.match(output, /kubectl create namespace/);
    }
  });

  it("exits non-zero with a log line when the RGD CRD is forbidden, also with leader election", async (t) => {
    const ns = `start-fail-${randomBytes(3).toString("hex")}`;
    await kubectl(["create", "namespace", ns]);
    t.after(async () => {
      await kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]);
    });
    await kubectl(["create", "serviceaccount", "kro", "-n", ns]);
    // May hold a Lease in its namespace, and nothing else: the RGD CRD is out of reach.
    await kubectl([
      "create",
      "role",
      "leases",
      "-n",
      ns,
      "--verb=get,create,update",
      "--resource=leases.coordination.k8s.io",
    ]);
    await kubectl(["create", "rolebinding", "leases", "-n", ns, "--role=leases", `--serviceaccount=${ns}:kro`]);
    const { kubeconfig } = await serviceAccountKubeconfig(t, ns, "kro");

    for (const election of [[], ["--leader-elect", "--leader-election-namespace", ns, "--leader-election-id", "kro"]]) {
      const { code, output } = await controller(kubeconfig, [
        ...election,
        "--rgd-selector",
        `kro-ts.test/controller=${ns}`,
      ]);
      assert.equal(code, 1, output);
      assert.match(output, /controller failed to start/);
      assert.match(output, /forbidden/i);
      assert.doesNotMatch(output, /unhandled|UnhandledPromiseRejection/i);
      // With leader election the controller starts warm, before or after it is elected: either
      // way reading the CRD is refused and the process exits.
    }
  });
});
