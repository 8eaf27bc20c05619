/**
 * `kro controller` as users run it out of cluster: a separate process with a kubeconfig, health
 * and metrics endpoints, a Lease when --leader-elect, an RGD turned into an API, and a clean exit
 * on SIGTERM that releases the Lease.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const id = randomBytes(3).toString("hex");
const kind = `Proc${id.replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)] ?? "x")}App`;
const lease = `kro-test-${id}`;
let healthPort = 0;
let metricsPort = 0;

/** A port the OS just handed out (closed again at once), instead of a random guess that may collide. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe("kro controller (a separate process)", { timeout: 120_000 }, () => {
  let child: ChildProcess;
  let stderr = "";
  before(async () => {
    healthPort = await freePort();
    metricsPort = await freePort();
    child = spawn(
      process.execPath,
      [
        cli,
        "controller",
        "--kubeconfig",
        testCluster().kubeconfig,
        "--health-probe-bind-address",
        `127.0.0.1:${healthPort}`,
        "--metrics-bind-address",
        `127.0.0.1:${metricsPort}`,
        "--leader-elect",
        "--leader-election-namespace",
        "default",
        "--leader-election-id",
        lease,
        "--rgd-selector",
        `kro-ts.test/controller=process-${id}`,
        "--log-format",
        "text",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
  });
  after(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    await kubectl(["delete", "rgd", `proc-${id}`, "--ignore-not-found", "--wait=false"]);
  });

  it("serves health, takes the Lease, and turns an RGD into an API", async () => {
    await eventually(async () => {
      assert.equal((await get(healthPort, "/healthz")).status, 200);
    });
    await eventually(async () => {
      assert.equal((await get(healthPort, "/readyz")).status, 200);
    });
    const holder = await eventually(async () => {
      const l = await kubectlJson<{ spec: { holderIdentity?: string } }>(["get", "lease", lease, "-n", "default"]);
      assert.ok(l.spec.holderIdentity);
      return l.spec.holderIdentity;
    });
    assert.match(holder, /_\d+$/);
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: proc-${id}, labels: { kro-ts.test/controller: "process-${id}" } }
spec:
  schema: { apiVersion: v1alpha1, kind: ${kind}, spec: { v: string } }
  resources:
    - id: cm
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}" }, data: { v: "\${schema.spec.v}" } }
`,
    );
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", `proc-${id}`])).status?.state,
          "Active",
        );
      },
      { timeout: 30_000 },
    );
    const metrics = await get(metricsPort, "/metrics");
    assert.match(metrics.body, /kro_reconcile_total\{kind="ResourceGraphDefinition",result="success"\} [1-9]/);
    assert.match(metrics.body, /kro_api_requests_total\{verb="GET",code="200"\}/);
  });

  it("exits cleanly on SIGTERM and releases the Lease", async () => {
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => {
        resolve(code);
      }),
    );
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr);
    const l = await kubectlJson<{ spec: { holderIdentity?: string } }>(["get", "lease", lease, "-n", "default"]);
    assert.equal(l.spec.holderIdentity ?? "", "");
  });
});
