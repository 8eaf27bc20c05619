/**
 * Credentials of a ServiceAccount on the test cluster, as a kubeconfig file: a token from the
 * TokenRequest API (`kubectl create token`) and the admin kubeconfig's server and CA. Lets a test
 * act — with kubectl or a kro-ts process — with exactly the rights RBAC gives that account.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { KubectlError, kubectl, testCluster } from "./test-cluster.js";

const run = promisify(execFile);

export interface ServiceAccountCredentials {
  readonly kubeconfig: string;
  readonly token: string;
}

interface AdminKubeconfig {
  clusters?: { name: string; cluster: Record<string, unknown> }[];
}

/** Writes a kubeconfig for `namespace/name`'s token (removed when the test ends). */
export async function serviceAccountKubeconfig(
  t: TestContext,
  namespace: string,
  name: string,
  durationSeconds = 3600,
): Promise<ServiceAccountCredentials> {
  const token = (await kubectl(["create", "token", name, "-n", namespace, `--duration=${durationSeconds}s`])).trim();
  const admin = parse(await readFile(testCluster().kubeconfig, "utf8")) as AdminKubeconfig;
  const [cluster] = admin.clusters ?? [];
  if (cluster === undefined) throw new Error("the admin kubeconfig names no cluster");
  const user = `system:serviceaccount:${namespace}:${name}`;
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: cluster.cluster }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: "sa", context: { cluster: "test", user, namespace } }],
    "current-context": "sa",
  };
  const dir = await mkdtemp(path.join(tmpdir(), "kro-sa-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  await writeFile(kubeconfig, JSON.stringify(config, null, 2), { mode: 0o600 });
  t.after(() => rm(dir, { recursive: true, force: true }));
  return { kubeconfig, token };
}

/** kubectl with another kubeconfig (a ServiceAccount's); rejects with KubectlError carrying stderr. */
export async function kubectlAs(kubeconfig: string, args: readonly string[], stdin?: string): Promise<string> {
  const child = run("kubectl", ["--kubeconfig", kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 });
  if (stdin !== undefined) child.child.stdin?.end(stdin);
  try {
    return (await child).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new KubectlError(`kubectl ${args.join(" ")} failed: ${stderr.trim()}`, stderr);
  }
}

/** `kubectl auth can-i` as that account: true for "yes", false for "no" (exit 1), throws otherwise. */
export async function canI(kubeconfig: string, args: readonly string[]): Promise<boolean> {
  try {
    const { stdout } = await run("kubectl", ["--kubeconfig", kubeconfig, "auth", "can-i", ...args]);
    return stdout.trim() === "yes";
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    if (stdout.trim() === "no") return false;
    throw new KubectlError(`kubectl auth can-i ${args.join(" ")} failed: ${stderr.trim()}`, stderr);
  }
}
