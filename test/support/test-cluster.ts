/**
 * The shared control plane started by scripts/run-tests.mjs, as seen by one test process.
 * Integration tests use kubectl (a real client) and a namespace of their own.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { TestContext } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface TestCluster {
  readonly kubeconfig: string;
  readonly server: string;
  readonly token: string;
  readonly kubernetesVersion: string;
  readonly mode: "minimal" | "full";
  /** etcd's client URL, to read what the API server really stored. */
  readonly etcdEndpoint?: string;
}

export function testCluster(): TestCluster {
  const {
    KRO_TEST_KUBECONFIG,
    KRO_TEST_SERVER,
    KRO_TEST_TOKEN,
    KRO_TEST_KUBERNETES_VERSION,
    KRO_TEST_CLUSTER_MODE,
    KRO_TEST_ETCD_ENDPOINT,
  } = process.env;
  if (!KRO_TEST_KUBECONFIG || !KRO_TEST_SERVER || !KRO_TEST_TOKEN || !KRO_TEST_KUBERNETES_VERSION) {
    throw new Error(
      "no test control plane: run integration tests through `npm test` (scripts/run-tests.mjs starts one)",
    );
  }
  return {
    kubeconfig: KRO_TEST_KUBECONFIG,
    server: KRO_TEST_SERVER,
    token: KRO_TEST_TOKEN,
    kubernetesVersion: KRO_TEST_KUBERNETES_VERSION,
    mode: KRO_TEST_CLUSTER_MODE === "minimal" ? "minimal" : "full",
    ...(KRO_TEST_ETCD_ENDPOINT ? { etcdEndpoint: KRO_TEST_ETCD_ENDPOINT } : {}),
  };
}

export class KubectlError extends Error {
  override readonly name = "KubectlError";
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** Runs kubectl against the test cluster; stdin may carry a manifest. Rejects with stderr. */
export async function kubectl(args: readonly string[], stdin?: string): Promise<string> {
  const { kubeconfig } = testCluster();
  const child = run("kubectl", ["--kubeconfig", kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 });
  if (stdin !== undefined) child.child.stdin?.end(stdin);
  try {
    return (await child).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new KubectlError(`kubectl ${args.join(" ")} failed: ${stderr.trim()}`, stderr);
  }
}

export async function kubectlJson<T = Record<string, unknown>>(args: readonly string[]): Promise<T> {
  return JSON.parse(await kubectl([...args, "-o", "json"])) as T;
}

/** A fresh namespace for one test, deleted (without waiting) when the test ends. */
export async function testNamespace(t: TestContext, prefix = "t"): Promise<string> {
  const slug = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 40)
    .replace(/-+$/, "");
  const name = `${slug}-${randomBytes(3).toString("hex")}`;
  await kubectl(["create", "namespace", name]);
  t.after(async () => {
    await kubectl(["delete", "namespace", name, "--wait=false", "--ignore-not-found"]);
  });
  return name;
}

/** Asserts that `kubectl get ARGS` answers NotFound (the object is gone, or never was). */
export async function expectAbsent(args: readonly string[]): Promise<void> {
  await assert.rejects(
    kubectl(["get", ...args]),
    (e: unknown) => e instanceof KubectlError && /NotFound/.test(e.stderr),
  );
}
