/**
 * Whether the API server enforces a policy the controller restored. The API server loads
 * admission policies asynchronously — its policy source recompiles about once a second after its
 * own informer sees the change, later on a busy server — so for a while after a restore, writes
 * are still admitted without the policy. A fixed wait after the restore only guesses, and judging
 * by when the controller saw a write mixes in its own watch latency. So the controller asks, from
 * the restore on and until the answer is yes: a dry-run create of the probe Event, which the
 * policy's first rule refuses with PROBE_REFUSAL exactly when the restored policy is in force.
 * The cluster's revision read right after that refusal (a consistent list) ends the window of
 * writes that may have been admitted without it (context/breach-windows.ts).
 *
 * Used for kro-delegation. The per-RGD instance policies do not match the controller's own
 * writes, so they cannot be probed this way and keep the restore-plus-SETTLE_MS window.
 */
import { ANNOTATIONS } from "../../api/index.js";
import type { BreachWindow, ControllerContext } from "../context/index.js";
import {
  DELEGATION_POLICY_KEY,
  DELEGATION_POLICY_NAME,
  POLICY_PROBE_ANNOTATION,
  PROBE_EVENT_NAME,
  PROBE_EVENT_NAMESPACE,
  PROBE_REFUSAL,
} from "./delegation-policy-objects.js";

/**
 * Between probes: every PROBE_MS while the API server would usually load the policy (about a
 * second, more when busy), then less often. The interval is the price: a write stored between the
 * last probe the policy let through and the first it refused is judged as written without it (the
 * moment of the load is not known more closely), so a delegation written just after the load
 * must not wait behind a probe seconds away.
 */
const PROBE_MS = 100;
const FREQUENT_PROBES = 100;
const MAX_PROBE_MS = 5_000;

/** The wait after the `attempt`th probe (0-based): PROBE_MS for FREQUENT_PROBES probes, then doubling to MAX_PROBE_MS. */
export function probeDelay(attempt: number): number {
  return attempt < FREQUENT_PROBES ? PROBE_MS : Math.min(MAX_PROBE_MS, PROBE_MS * 2 ** (attempt - FREQUENT_PROBES + 1));
}

type Ctx = Pick<ControllerContext, "client" | "authorPolicies" | "rgdQueue" | "delegations" | "logger">;

const PROBE_EVENT = {
  apiVersion: "v1",
  kind: "Event",
  metadata: {
    name: PROBE_EVENT_NAME,
    namespace: PROBE_EVENT_NAMESPACE,
    annotations: { [POLICY_PROBE_ANNOTATION]: DELEGATION_POLICY_NAME, [ANNOTATIONS.authorCheck]: "Disabled" },
  },
  involvedObject: { apiVersion: "v1", kind: "Namespace", name: PROBE_EVENT_NAMESPACE },
  reason: "PolicyProbe",
  message: `does the API server enforce ${DELEGATION_POLICY_NAME}? (a dry run: never stored)`,
  type: "Normal",
};

/** The restores being proven, with why the last probe did not prove it (undefined: no answer yet). */
const proving = new WeakMap<BreachWindow, { problem: string | undefined }>();

const NOT_ENFORCED_YET = "the API server does not enforce the restored";

/** Asks once: true when proven, else why not. */
async function probe(ctx: Ctx, window: BreachWindow): Promise<true | string> {
  try {
    await ctx.client.create(PROBE_EVENT, { dryRun: true });
    return `${NOT_ENFORCED_YET} ${DELEGATION_POLICY_NAME} admission policy yet`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!message.includes(PROBE_REFUSAL))
      return `cannot tell whether the API server enforces the restored ${DELEGATION_POLICY_NAME} admission policy: ${message}`;
  }
  try {
    const list = await ctx.client.list("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", {
      fieldSelector: `metadata.name=${DELEGATION_POLICY_NAME}`,
    });
    ctx.authorPolicies.restoreLoaded(window, list.metadata.resourceVersion);
    return true;
  } catch (error) {
    return `cannot read the cluster's revision: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Proves the restore awaiting proof, if any, probing until the API server enforces it (or another
 * breach replaces it); then every delegating RGD is judged again. Idempotent: one prover per restore.
 */
export function proveDelegationPolicyLoaded(ctx: Ctx, wait = sleep): void {
  const window = ctx.authorPolicies.unprovenRestore(DELEGATION_POLICY_KEY);
  if (window === undefined || proving.has(window)) return;
  const state: { problem: string | undefined; usual: boolean } = { problem: undefined, usual: true };
  proving.set(window, state);
  void (async () => {
    for (let attempt = 0; !ctx.rgdQueue.isShutDown; attempt++) {
      if (ctx.authorPolicies.unprovenRestore(DELEGATION_POLICY_KEY) !== window) return;
      const answer = await probe(ctx, window);
      if (answer === true) {
        for (const name of ctx.delegations.delegating) ctx.rgdQueue.add(name);
        return;
      }
      // The API server loads a policy about a second after it is written, so the first answers of
      // every restore (and of every clean install) are "not yet": a warning only once that has
      // lasted through the frequent probes, or for any other answer.
      const usual = answer.startsWith(NOT_ENFORCED_YET) && attempt < FREQUENT_PROBES;
      if (answer !== state.problem || (!usual && state.usual))
        ctx.logger[usual ? "info" : "warn"]({ reason: answer }, "delegations wait for the restored policy");
      state.problem = answer;
      state.usual = usual;
      await wait(probeDelay(attempt));
    }
  })().finally(() => proving.delete(window));
}

/**
 * Undefined when writes can be judged against kro-delegation's breach windows: no restore awaits
 * proof. Otherwise why not (a prover runs, and judges every delegating RGD again once it proves it).
 */
export function delegationPolicyUnproven(ctx: Ctx): string | undefined {
  const window = ctx.authorPolicies.unprovenRestore(DELEGATION_POLICY_KEY);
  if (window === undefined) return undefined;
  proveDelegationPolicyLoaded(ctx);
  return (
    proving.get(window)?.problem ??
    `waiting for the API server to enforce the restored ${DELEGATION_POLICY_NAME} admission policy`
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
