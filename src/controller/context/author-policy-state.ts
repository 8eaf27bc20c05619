/**
 * Whether each RGD's instance-author policy is in force (issue #24, point 8): what the controller
 * last applied, and whether the cluster still holds exactly that. The policy watch
 * (author-policy/policy-guard.ts) reports every event on the policy objects here; a deleted or
 * edited object is a breach until the RGD's reconcile has applied the policy again. While an
 * RGD's policy is not in force its instances are not reconciled, and every instance written
 * meanwhile — or within SETTLE_MS after the restore, while the API server may still be loading
 * the restored policy — is remembered as admitted unchecked: the controller acts on it only
 * once someone has written it again under the policy (instance/unchecked-admission.ts).
 */
import { isJsonSubset, jsonEqual } from "./json-equal.js";

/** The API server loads (re-)created policies asynchronously; instances written this soon after are not trusted. */
export const SETTLE_MS = 2_000;

export type PolicyStanding =
  | { readonly inForce: true }
  | { readonly inForce: false; readonly reason: string };

interface Entry {
  uid: string;
  /** "Kind/name" → spec as we sent it (subset) or, once applied, as the server stored it (exact). */
  expected: Map<string, { spec: unknown; exact: boolean }>;
  breach: string | undefined;
  /** Date.now() of the last restore after a breach: writes until SETTLE_MS later are suspect. */
  restoredAt: number;
}

export class AuthorPolicyState {
  private readonly byRgd = new Map<string, Entry>();
  private readonly byUid = new Map<string, string>();
  /** Instance keys written while their RGD's policy was suspect, not yet stamped (instance/unchecked-admission.ts). */
  private readonly unchecked = new Set<string>();

  constructor(private readonly clock: () => number = Date.now) {}

  /**
   * The objects about to be applied for an RGD (empty: the RGD has no policy, by choice). An object
   * the cluster is already known to hold as wanted stays confirmed (installFailed relies on it).
   */
  expect(rgdName: string, uid: string, objects: readonly Record<string, unknown>[]): void {
    const entry: Entry = this.byRgd.get(rgdName) ?? { uid, expected: new Map(), breach: undefined, restoredAt: 0 };
    const confirmed: Entry["expected"] = entry.uid === uid ? entry.expected : new Map<string, { spec: unknown; exact: boolean }>();
    entry.uid = uid;
    entry.expected = new Map(objects.map((o): [string, { spec: unknown; exact: boolean }] => {
      const key = `${String(o.kind)}/${(o.metadata as { name: string }).name}`;
      const known = confirmed.get(key);
      return [key, known?.exact === true && isJsonSubset(o.spec, known.spec) ? known : { spec: o.spec, exact: false }];
    }));
    this.byRgd.set(rgdName, entry);
    this.byUid.set(uid, rgdName);
  }

  /**
   * Every expected object was applied (`stored`: the server's answers, defaults included, so any
   * later difference — a field added as much as one removed — is a breach): in force again.
   */
  applied(rgdName: string, stored: readonly Record<string, unknown>[] = []): void {
    const entry = this.byRgd.get(rgdName);
    if (entry === undefined) return;
    for (const o of stored) {
      const key = `${String(o.kind)}/${(o.metadata as { name?: string } | undefined)?.name ?? ""}`;
      if (entry.expected.has(key)) entry.expected.set(key, { spec: o.spec, exact: true });
    }
    if (entry.breach !== undefined) entry.restoredAt = this.clock();
    entry.breach = undefined;
  }

  /**
   * Applying the policy failed (the API server down or restarting, say). That alone breaches
   * nothing when every object wanted is one the cluster was seen to hold unchanged: the policy in
   * force is the one wanted, and instances written meanwhile were checked by it. Otherwise (a new
   * or changed policy that never landed) the instances wait, as after a breach.
   */
  installFailed(rgdName: string, reason: string): void {
    const entry = this.byRgd.get(rgdName);
    const inForce = entry !== undefined && entry.breach === undefined && [...entry.expected.values()].every((e) => e.exact);
    if (!inForce) this.breach(rgdName, reason);
  }

  breach(rgdName: string, reason: string): void {
    const entry = this.byRgd.get(rgdName);
    if (entry === undefined) {
      this.byRgd.set(rgdName, { uid: "", expected: new Map(), breach: reason, restoredAt: 0 });
      return;
    }
    entry.breach ??= reason;
  }

  forget(rgdName: string): void {
    const entry = this.byRgd.get(rgdName);
    if (entry !== undefined) this.byUid.delete(entry.uid);
    this.byRgd.delete(rgdName);
  }

  /**
   * A policy object as the cluster shows it now (undefined: deleted). Returns the RGD whose policy
   * it breaches, or undefined when it is as applied (or not ours).
   */
  observe(rgdUid: string, kind: string, name: string, spec: unknown): string | undefined {
    const rgdName = this.byUid.get(rgdUid);
    const entry = rgdName === undefined ? undefined : this.byRgd.get(rgdName);
    if (rgdName === undefined || entry === undefined) return undefined;
    const key = `${kind}/${name}`;
    if (!entry.expected.has(key)) return undefined; // a stale chunk being removed
    const want = entry.expected.get(key);
    if (spec !== undefined && want !== undefined && (want.exact ? jsonEqual(want.spec, spec) : isJsonSubset(want.spec, spec))) return undefined;
    this.breach(rgdName, spec === undefined ? `${kind} ${name} was deleted` : `${kind} ${name} was changed`);
    return rgdName;
  }

  standing(rgdName: string): PolicyStanding {
    const breach = this.byRgd.get(rgdName)?.breach;
    return breach === undefined ? { inForce: true } : { inForce: false, reason: breach };
  }

  /** An instance write seen now cannot be trusted to have passed the policy. */
  suspect(rgdName: string): boolean {
    const entry = this.byRgd.get(rgdName);
    if (entry === undefined) return false;
    return entry.breach !== undefined || this.clock() - entry.restoredAt < SETTLE_MS;
  }

  markUnchecked(instanceKey: string): void {
    this.unchecked.add(instanceKey);
  }

  isMarkedUnchecked(instanceKey: string): boolean {
    return this.unchecked.has(instanceKey);
  }

  clearUnchecked(instanceKey: string): void {
    this.unchecked.delete(instanceKey);
  }
}
