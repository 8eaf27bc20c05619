/**
 * Who a bearer token belongs to, as the API server says (a TokenReview, authentication.k8s.io/v1,
 * created with the controller's client — the one thing the web endpoint asks with the
 * controller's rights). A positive answer is kept briefly so a page refreshing every two
 * seconds does not cost a review each time; a refusal is never kept. A revoked token still reads
 * nothing meanwhile: every read is made with the token itself, which the API server judges anew.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { ApiError, type KubeClient, type KubeObject } from "../../kube/index.js";

export interface ReviewedUser {
  readonly username: string;
  readonly groups: readonly string[];
}

export type TokenReviewAnswer =
  | { readonly outcome: "authenticated"; readonly user: ReviewedUser }
  | { readonly outcome: "refused"; readonly reason: string }
  /** The review itself failed (e.g. the controller may not create TokenReviews): nothing may be served. */
  | { readonly outcome: "unavailable"; readonly reason: string };

export const tokenKey = (token: string): string => createHash("sha256").update(token).digest("hex");

/** How long an authenticated answer is kept (kube-apiserver's own webhook token cache keeps 2 min). */
export const DEFAULT_REVIEW_TTL_MS = 10_000;

interface TokenReviewObject extends KubeObject {
  readonly status?: {
    readonly authenticated?: boolean;
    readonly user?: { readonly username?: string; readonly groups?: readonly string[] };
    readonly error?: string;
  };
}

export class TokenReviews {
  private readonly known: LRUCache<string, ReviewedUser>;
  private readonly inFlight = new Map<string, Promise<TokenReviewAnswer>>();

  constructor(
    private readonly client: Pick<KubeClient, "create">,
    ttlMs = DEFAULT_REVIEW_TTL_MS,
  ) {
    this.known = new LRUCache({ max: 1024, ttl: ttlMs });
  }

  review(token: string): Promise<TokenReviewAnswer> {
    const key = tokenKey(token);
    const user = this.known.get(key);
    if (user !== undefined) return Promise.resolve({ outcome: "authenticated", user });
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const asked = this.ask(token)
      .then((answer) => {
        if (answer.outcome === "authenticated") this.known.set(key, answer.user);
        return answer;
      })
      .finally(() => {
        this.inFlight.delete(key);
      });
    this.inFlight.set(key, asked);
    return asked;
  }

  private async ask(token: string): Promise<TokenReviewAnswer> {
    let review: TokenReviewObject;
    try {
      // No audiences: the API server checks the token against its own, as for any request to it.
      review = await this.client.create<TokenReviewObject>({
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        metadata: { name: "kro-web-view" },
        spec: { token },
      });
    } catch (error) {
      const reason =
        error instanceof ApiError
          ? `${String(error.status)} ${error.serverMessage || error.message}`
          : error instanceof Error
            ? error.message
            : String(error);
      return { outcome: "unavailable", reason: `the controller could not review the token: ${reason}` };
    }
    const status = review.status ?? {};
    const username = status.user?.username ?? "";
    if (status.authenticated !== true || username === "")
      return {
        outcome: "refused",
        reason:
          status.error !== undefined && status.error !== ""
            ? status.error
            : "the API server does not accept this token",
      };
    return { outcome: "authenticated", user: { username, groups: status.user?.groups ?? [] } };
  }
}
