/**
 * Whether each RGD's instance-author policy is in force: what the controller
 * last applied, and whether the cluster still holds exactly that. The policy watch
 * (author-policy/policy-guard.ts) reports every event on the policy objects here; a deleted or
 * edited object is a breach until the RGD's reconcile has applied the policy again. While an
 * RGD's policy is not in force its instances are not reconciled, and every instance written
 * meanwhile — or within SETTLE_MS after the restore, while the API server may still be loading
 * the restored policy — is remembered as admitted unchecked: the controller acts on it only
 * once someone has written it again under the policy (instance/unchecked-admission.ts).
 *
 * Which writes were "meanwhile" is decided by revision (breach-windows.ts), and only once the
 * policy watch has caught up with the write (author-policy/policy-barrier.ts): an instance
 * event that overtakes the policy's delete event is judged after it, not before.
 */
import {
  closeWindow,
  openWindow,
  proveLoaded,
  revisionOf,
  withinWindow,
  type BreachWindow,
  type ObservedWrite,
} from "./breach-windows.js";
import { isJsonSubset, jsonEqual } from "./json-equal.js";

export { SETTLE_MS, type ObservedWrite } from "./breach-windows.js";

/**
 * A right the write gate asks of an instance's recorded requester before it writes a child of a
 * node: one of the RGD's author checks (author-policy/author-checks.ts), asked on the concrete
 * object. `adoption`: asked only when the instance adopts ("any") or adopts for deletion ("delete").
 */
export interface GateRight {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly clusterScoped: boolean;
  readonly adoption: "any" | "delete" | undefined;
}

export type PolicyStanding = { readonly inForce: true } | { readonly inForce: false; readonly reason: string };

interface Entry {
  uid: string;
  /** "Kind/name" → spec as we sent it (subset) or, once applied, as the server stored it (exact). */
  expected: Map<string, { spec: unknown; exact: boolean }>;
  breach: string | undefined;
  /** When the policy was not in force (the last one open while breached). */
  windows: BreachWindow[];
}

export class AuthorPolicyState {
  private readonly byRgd = new Map<string, Entry>();
  private readonly byUid = new Map<string, string>();
  /** Instance keys written while their RGD's policy was suspect, not yet stamped (instance/unchecked-admission.ts). */
  private readonly unchecked = new Set<string>();
  /** RGD name → node id → the rights the write gate asks for (set with the policy it mirrors). */
  private readonly rights = new Map<string, ReadonlyMap<string, readonly GateRight[]>>();
  /** Instance key → writes seen but not judged yet (judged once the policy watch has caught up). */
  private readonly pending = new Map<string, { writes: ObservedWrite[]; ticket: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The clock writes are observed by (a write judged as read now carries this time). */
  now(): number {
    return this.clock();
  }

  /**
   * The objects about to be applied for an RGD (empty: the RGD has no policy, by choice). An object
   * the cluster is already known to hold as wanted stays confirmed (installFailed relies on it).
   */
  expect(rgdName: string, uid: string, objects: readonly Record<string, unknown>[]): void {
    const entry: Entry = this.byRgd.get(rgdName) ?? { uid, expected: new Map(), breach: undefined, windows: [] };
    const confirmed: Entry["expected"] =
      entry.uid === uid ? entry.expected : new Map<string, { spec: unknown; exact: boolean }>();
    entry.uid = uid;
    entry.expected = new Map(
      objects.map((o): [string, { spec: unknown; exact: boolean }] => {
        const key = `${String(o.kind)}/${(o.metadata as { name: string }).name}`;
        const known = confirmed.get(key);
        return [
          key,
          known?.exact === true && isJsonSubset(o.spec, known.spec) ? known : { spec: o.spec, exact: false },
        ];
      }),
    );
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
    if (entry.breach !== undefined)
      closeWindow(
        entry.windows,
        stored.map((o) => (o.metadata as { resourceVersion?: string } | undefined)?.resourceVersion),
        this.clock(),
      );
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
    const inForce =
      entry !== undefined && entry.breach === undefined && [...entry.expected.values()].every((e) => e.exact);
    if (!inForce) this.breach(rgdName, reason);
  }

  /** `resourceVersion`: of the change that breached it, when an event showed one. */
  breach(rgdName: string, reason: string, resourceVersion?: string): void {
    const entry: Entry = this.byRgd.get(rgdName) ?? { uid: "", expected: new Map(), breach: undefined, windows: [] };
    this.byRgd.set(rgdName, entry);
    if (entry.breach === undefined) openWindow(entry.windows, resourceVersion, this.clock());
    entry.breach ??= reason;
  }

  /** What the write gate asks of the RGD's instances' requesters, as its policy's checks say. */
  grant(rgdName: string, rights: ReadonlyMap<string, readonly GateRight[]>): void {
    this.rights.set(rgdName, rights);
  }

  rightsOf(rgdName: string): ReadonlyMap<string, readonly GateRight[]> {
    return this.rights.get(rgdName) ?? new Map();
  }

  forget(rgdName: string): void {
    this.rights.delete(rgdName);
    const entry = this.byRgd.get(rgdName);
    if (entry !== undefined) this.byUid.delete(entry.uid);
    this.byRgd.delete(rgdName);
  }

  /**
   * A policy object as the cluster shows it now (undefined: deleted). Returns the RGD whose policy
   * it breaches, or undefined when it is as applied (or not ours).
   */
  observe(rgdUid: string, kind: string, name: string, spec: unknown, resourceVersion?: string): string | undefined {
    const rgdName = this.byUid.get(rgdUid);
    const entry = rgdName === undefined ? undefined : this.byRgd.get(rgdName);
    if (rgdName === undefined || entry === undefined) return undefined;
    const key = `${kind}/${name}`;
    if (!entry.expected.has(key)) return undefined; // a stale chunk being removed
    const want = entry.expected.get(key);
    if (
      spec !== undefined &&
      want !== undefined &&
      (want.exact ? jsonEqual(want.spec, spec) : isJsonSubset(want.spec, spec))
    )
      return undefined;
    this.breach(
      rgdName,
      spec === undefined ? `${kind} ${name} was deleted` : `${kind} ${name} was changed`,
      resourceVersion,
    );
    return rgdName;
  }

  standing(rgdName: string): PolicyStanding {
    const breach = this.byRgd.get(rgdName)?.breach;
    return breach === undefined ? { inForce: true } : { inForce: false, reason: breach };
  }

  /**
   * The restore the API server has not been shown to enforce yet (the last breach window, closed
   * and unproven); undefined when there is none or the policy is breached now. Only policies the
   * controller can probe are proven this way (author-policy/policy-load-proof.ts).
   */
  unprovenRestore(rgdName: string): BreachWindow | undefined {
    const entry = this.byRgd.get(rgdName);
    const last = entry?.windows.at(-1);
    if (entry?.breach !== undefined || last?.toTime === undefined || last.loadedTime !== undefined) return undefined;
    return last;
  }

  /** The API server enforces the restore of `window`; `resourceVersion`: the cluster's revision read after seeing so. */
  restoreLoaded(window: BreachWindow, resourceVersion: string | undefined): void {
    proveLoaded(window, resourceVersion, this.clock());
  }

  /** Whether the RGD has a policy the controller keeps (none: nothing to judge writes by). */
  guarded(rgdName: string): boolean {
    const entry = this.byRgd.get(rgdName);
    return entry !== undefined && (entry.expected.size > 0 || entry.breach !== undefined || entry.windows.length > 0);
  }

  /**
   * Whether an instance write cannot be trusted to have passed the policy: stored while it was
   * not in force (by revision), or seen while or just after (without: a write seen now).
   */
  suspect(rgdName: string, write: ObservedWrite = { resourceVersion: undefined, observedAt: this.clock() }): boolean {
    const entry = this.byRgd.get(rgdName);
    if (entry === undefined) return false;
    return entry.windows.some((w) => withinWindow(w, write));
  }

  /** A write of an instance seen now (`ticket`: policy-barrier.ts), judged once the policy watch has caught up with it. */
  seen(instanceKey: string, resourceVersion: string | undefined, ticket: number): void {
    const entry = this.pending.get(instanceKey) ?? { writes: [], ticket };
    entry.writes.push({ resourceVersion, observedAt: this.clock() });
    entry.ticket = Math.max(entry.ticket, ticket);
    this.pending.set(instanceKey, entry);
  }

  /** The ticket the policy watch must pass before the instance's unjudged writes can be judged; undefined: none. */
  seenTicket(instanceKey: string): number | undefined {
    return this.pending.get(instanceKey)?.ticket;
  }

  /** The newest resourceVersion among an instance's unjudged writes (undefined unless all are decimal revisions). */
  newestSeen(instanceKey: string): string | undefined {
    let newest: bigint | undefined;
    for (const write of this.pending.get(instanceKey)?.writes ?? []) {
      const rv = revisionOf(write.resourceVersion);
      if (rv === undefined) return undefined;
      if (newest === undefined || rv > newest) newest = rv;
    }
    return newest?.toString();
  }

  /** The writes of an instance not judged yet (taken: the caller judges them). */
  takeSeen(instanceKey: string): readonly ObservedWrite[] {
    const writes = this.pending.get(instanceKey)?.writes ?? [];
    this.pending.delete(instanceKey);
    return writes;
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

  /** The instance is gone: its unjudged writes and its unchecked mark go with it. */
  forgetInstance(instanceKey: string): void {
    this.pending.delete(instanceKey);
    this.unchecked.delete(instanceKey);
  }
}
