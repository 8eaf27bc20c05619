/**
 * Serializes the tests that widen what the installed ServiceAccount kro-system:kro-ts may do.
 * Every ClusterRole labelled rbac.kro.run/aggregate-to-controller: "true" is aggregated into the
 * one ClusterRole that account is bound to, cluster-wide, so a test granting Secrets would break
 * a concurrent test asserting that Secrets are denied. Test files run in separate processes, so
 * the lock lives in the API server: a Lease in kro-system, taken by create (AlreadyExists = held)
 * and taken over only once expired (a test process that died mid-test does not block the run).
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { eventually } from "./eventually.js";
import { KubectlError, kubectl, kubectlJson } from "./test-cluster.js";

const LOCK = { namespace: "kro-system", name: "kro-ts-test-aggregated-grants" } as const;
const AGGREGATED_ROLE = "kro-ts";
const AGGREGATION_LABEL = "rbac.kro.run/aggregate-to-controller";
const HOLD_SECONDS = 600;
const WAIT_MS = 10 * 60_000;

interface Lease {
  metadata: { resourceVersion: string };
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}
interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs?: string[];
}
interface ClusterRole {
  metadata: { name: string; labels?: Record<string, string> };
  rules?: Rule[];
}

export interface AggregatedGrants {
  /** Applies a labelled ClusterRole (the label is added) and waits until the account has its rules. */
  grant(role: ClusterRole): Promise<void>;
  /** Deletes every grant made here, waits until aggregation dropped their rules, frees the lock. */
  release(): Promise<void>;
}

/** Waits for the lock (kro-system must exist: apply the manifest first). */
export async function lockAggregatedGrants(holder: string): Promise<AggregatedGrants> {
  const identity = `${holder} (${hostname()} pid ${process.pid})`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (await tryTake(identity)) break;
    if (Date.now() > deadline) {
      const lease = await kubectlJson<Lease>(["get", "lease", LOCK.name, "-n", LOCK.namespace]);
      throw new Error(
        `the aggregated-grants lock is still held by ${lease.spec?.holderIdentity ?? "?"} after ${WAIT_MS / 1000}s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const granted: ClusterRole[] = [];
  return {
    async grant(role) {
      const labelled = {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        ...role,
        metadata: { ...role.metadata, labels: { ...role.metadata.labels, [AGGREGATION_LABEL]: "true" } },
      };
      granted.push(labelled);
      await kubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(labelled));
      await eventually(
        async () => {
          const aggregated = await aggregatedRules();
          for (const rule of role.rules ?? [])
            assert.ok(aggregated.has(ruleKey(rule)), `not aggregated yet: ${ruleKey(rule)}`);
        },
        { timeout: 30_000, interval: 250 },
      );
    },
    async release() {
      for (const role of granted) await kubectl(["delete", "clusterrole", role.metadata.name, "--ignore-not-found"]);
      // The next holder may assert that these rights are gone: wait for the aggregation.
      await eventually(
        async () => {
          const aggregated = await aggregatedRules();
          const remaining = await labelledRules();
          for (const rule of granted.flatMap((r) => r.rules ?? [])) {
            const key = ruleKey(rule);
            assert.ok(!aggregated.has(key) || remaining.has(key), `still aggregated: ${key}`);
          }
        },
        { timeout: 30_000, interval: 250 },
      );
      await kubectl(["delete", "lease", LOCK.name, "-n", LOCK.namespace, "--ignore-not-found"]);
    },
  };
}

async function tryTake(identity: string): Promise<boolean> {
  const now = new Date().toISOString().replace("Z", "000Z");
  const spec = { holderIdentity: identity, leaseDurationSeconds: HOLD_SECONDS, acquireTime: now, renewTime: now };
  try {
    await kubectl(
      ["create", "-f", "-"],
      JSON.stringify({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: LOCK, spec }),
    );
    return true;
  } catch (error) {
    if (!(error instanceof KubectlError) || !/AlreadyExists/.test(error.stderr)) throw error;
  }
  let lease: Lease;
  try {
    lease = await kubectlJson<Lease>(["get", "lease", LOCK.name, "-n", LOCK.namespace]);
  } catch (error) {
    if (error instanceof KubectlError && /NotFound/.test(error.stderr)) return false; // just released: retry
    throw error;
  }
  const renewed = Date.parse(lease.spec?.renewTime ?? "");
  const expired =
    Number.isNaN(renewed) || renewed + (lease.spec?.leaseDurationSeconds ?? HOLD_SECONDS) * 1000 < Date.now();
  if (!expired) return false;
  try {
    // resourceVersion makes the takeover optimistic: of two waiters, one gets a Conflict.
    await kubectl(
      ["replace", "-f", "-"],
      JSON.stringify({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { ...LOCK, resourceVersion: lease.metadata.resourceVersion },
        spec,
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof KubectlError && /Conflict|modified|NotFound/i.test(error.stderr)) return false;
    throw error;
  }
}

async function aggregatedRules(): Promise<Set<string>> {
  const role = await kubectlJson<ClusterRole>(["get", "clusterrole", AGGREGATED_ROLE]);
  return new Set((role.rules ?? []).map(ruleKey));
}

async function labelledRules(): Promise<Set<string>> {
  const roles = await kubectlJson<{ items: ClusterRole[] }>(["get", "clusterroles", "-l", `${AGGREGATION_LABEL}=true`]);
  return new Set(roles.items.flatMap((r) => (r.rules ?? []).map(ruleKey)));
}

/** The API server prints a rule's fields in its own order: compare field by field. */
function ruleKey(rule: Rule): string {
  return JSON.stringify([rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.verbs ?? []]);
}
