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

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, "dist/src/cli/main.js");

async function controller(kubeconfig: string, args: readonly string[], timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, "controller", "--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--log-format", "text", ...args], { timeout: timeoutMs });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (e.killed === true) throw new Error(`the controller did not exit within ${timeoutMs} ms:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
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
      [["--leader-elect", "--leader-elect-renew-deadline", "20s"], /leaseDuration \(15000 ms\) must be greater than renewDeadline \(20000 ms\)/],
    ] as const) {
      const { code, output } = await controller(kubeconfig, args);
      assert.equal(code, 1, `${args.join(" ")}: ${output}`);
      assert.match(output, message);
    }
  });

  it("exits non-zero with a log line when the RGD CRD is forbidden, also with leader election", async (t) => {
    const ns = `start-fail-${randomBytes(3).toString("hex")}`;
    await kubectl(["create", "namespace", ns]);
    t.after(async () => { await kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]); });
    await kubectl(["create", "serviceaccount", "kro", "-n", ns]);
    // May hold a Lease in its namespace, and nothing else: the RGD CRD is out of reach.
    await kubectl(["create", "role", "leases", "-n", ns, "--verb=get,create,update", "--resource=leases.coordination.k8s.io"]);
    await kubectl(["create", "rolebinding", "leases", "-n", ns, "--role=leases", `--serviceaccount=${ns}:kro`]);
    const { kubeconfig } = await serviceAccountKubeconfig(t, ns, "kro");

    for (const election of [[], ["--leader-elect", "--leader-election-namespace", ns, "--leader-election-id", "kro"]]) {
      const { code, output } = await controller(kubeconfig, [...election, "--rgd-selector", `kro-ts.test/controller=${ns}`]);
      assert.equal(code, 1, output);
      assert.match(output, /controller failed to start/);
      assert.match(output, /forbidden/i);
      assert.doesNotMatch(output, /unhandled|UnhandledPromiseRejection/i);
      // With leader election the controller starts warm, before or after it is elected: either
      // way reading the CRD is refused and the process exits.
    }
  });
});
