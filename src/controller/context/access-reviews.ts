/**
 * SubjectAccessReviews the write gate asks for instance requesters, cached briefly: a converged
 * instance's passes cost no reviews, and a right revoked is seen within the cache's lifetime. A
 * review that could not be asked is not cached (the next write asks again).
 */
import type { KubeClient } from "../../kube/index.js";

export interface AccessRequest {
  readonly user: string;
  readonly groups: readonly string[];
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly namespace?: string;
  readonly name?: string;
}

const MAX_ENTRIES = 10_000;

export class AccessReviews {
  private readonly answers = new Map<string, { allowed: boolean; at: number }>();

  constructor(
    private readonly client: Pick<KubeClient, "review">,
    readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * true or false as the API server's authorizer answers; a string says why it could not be asked.
   * An answer is as old as its question: one that took long to arrive (a busy API server) is
   * trusted only for what is left of the lifetime counted from when it was asked, so an answer
   * given before a revocation never looks fresh after it.
   */
  async allowed(request: AccessRequest): Promise<boolean | string> {
    const { user, groups, ...attributes } = request;
    const key = JSON.stringify([user, [...groups].sort(), attributes]);
    const cached = this.answers.get(key);
    if (cached !== undefined && this.clock() - cached.at < this.ttlMs) return cached.allowed;
    const asked = this.clock();
    try {
      const review = await this.client.review({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, groups: [...groups], resourceAttributes: attributes },
      });
      const allowed = (review as { status?: { allowed?: unknown } }).status?.allowed === true;
      if (this.answers.size >= MAX_ENTRIES) this.answers.clear();
      const newest = this.answers.get(key);
      if (newest === undefined || newest.at <= asked) this.answers.set(key, { allowed, at: asked });
      return allowed;
    } catch (error) {
      return `SubjectAccessReview failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
