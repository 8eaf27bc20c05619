/**
 * What the controller concluded about each RGD's delegation: whether the
 * write that set it was admitted under the static kro-delegation policy (judged once per
 * delegation, like instance writes: context/author-policy-state.ts), and the answers of the
 * SubjectAccessReviews that check its recorded author, cached for the re-verification period so
 * an RGD's frequent reconciles cost no reviews; a revoked right is seen within that period.
 */

export interface DelegationVerdict {
  /** The delegation it is about (delegation-fingerprint): a different one is judged afresh. */
  readonly fingerprint: string;
  /** Why the write cannot be trusted to have passed the policy; undefined: it passed. */
  readonly unverified: string | undefined;
}

export class DelegationVerdicts {
  private readonly verdicts = new Map<string, DelegationVerdict>();
  private readonly reviews = new Map<string, { allowed: boolean; at: number }>();
  /** RGDs that delegate (re-verified every period). */
  readonly delegating = new Set<string>();

  constructor(
    readonly recheckMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  verdict(rgdName: string, fingerprint: string): DelegationVerdict | undefined {
    const verdict = this.verdicts.get(rgdName);
    return verdict?.fingerprint === fingerprint ? verdict : undefined;
  }

  judged(rgdName: string, verdict: DelegationVerdict): void {
    this.verdicts.set(rgdName, verdict);
  }

  forget(rgdName: string): void {
    this.verdicts.delete(rgdName);
    this.delegating.delete(rgdName);
  }

  /** A cached review answer younger than the re-verification period. */
  review(key: string): boolean | undefined {
    const found = this.reviews.get(key);
    if (found === undefined || this.clock() - found.at >= this.recheckMs) return undefined;
    return found.allowed;
  }

  reviewed(key: string, allowed: boolean): void {
    if (this.reviews.size > 10_000) this.reviews.clear();
    this.reviews.set(key, { allowed, at: this.clock() });
  }
}

/** The parts of an RGD a delegation consists of: the waiver, the recorded author, the graph it applies to. */
export function delegationFingerprint(
  rgd: { metadata?: { generation?: number; annotations?: Record<string, string> } },
  keys: readonly string[],
): string {
  const annotations = rgd.metadata?.annotations ?? {};
  return JSON.stringify([rgd.metadata?.generation ?? 0, ...keys.map((k) => annotations[k] ?? null)]);
}
