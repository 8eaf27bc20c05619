// What the web endpoint keeps of the API server's answers about tokens: an accepted token for a
// few seconds (one review per page refresh would be wasteful), a refusal never (a token that
// becomes valid is accepted at once; garbage cannot fill the cache), and a failed review is no
// acceptance. The API server itself is stood in for; the real one is in controller-ui.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, type KubeClient, type KubeObject } from "../../kube/index.js";
import { TokenReviews } from "./token-review.js";

function apiServer(answer: (token: string) => KubeObject | Error): {
  client: Pick<KubeClient, "create">;
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    client: {
      create: <T extends KubeObject>(object: T): Promise<T> => {
        const token = String((object.spec as { token?: unknown } | undefined)?.token);
        asked.push(token);
        const reply = answer(token);
        return new Promise((resolve, reject) => {
          setTimeout(() => {
            if (reply instanceof Error) reject(reply);
            else resolve(reply as T);
          }, 5);
        });
      },
    },
  };
}

const accepted = (username: string): KubeObject => ({
  apiVersion: "authentication.k8s.io/v1",
  kind: "TokenReview",
  status: { authenticated: true, user: { username, groups: ["system:authenticated"] } },
});
const refused: KubeObject = {
  apiVersion: "authentication.k8s.io/v1",
  kind: "TokenReview",
  status: { authenticated: false, error: "token expired" },
};

describe("TokenReviews", () => {
  it("keeps an accepted token briefly and asks once for concurrent requests", async () => {
    const server = apiServer((t) => (t === "good" ? accepted("alice") : refused));
    const reviews = new TokenReviews(server.client, 60_000);
    const answers = await Promise.all([reviews.review("good"), reviews.review("good"), reviews.review("good")]);
    assert.deepEqual(
      answers.map((a) => a.outcome),
      ["authenticated", "authenticated", "authenticated"],
    );
    await reviews.review("good");
    assert.deepEqual(server.asked, ["good"]);
  });

  it("asks again once the answer is older than its time to live", async () => {
    const server = apiServer(() => accepted("alice"));
    const reviews = new TokenReviews(server.client, 20);
    await reviews.review("good");
    await new Promise((r) => setTimeout(r, 40));
    await reviews.review("good");
    assert.equal(server.asked.length, 2);
  });

  it("never keeps a refusal, and says why", async () => {
    let valid = false;
    const server = apiServer(() => (valid ? accepted("bob") : refused));
    const reviews = new TokenReviews(server.client, 60_000);
    assert.deepEqual(await reviews.review("later"), { outcome: "refused", reason: "token expired" });
    valid = true;
    assert.equal((await reviews.review("later")).outcome, "authenticated");
    assert.equal(server.asked.length, 2);
  });

  it("treats a review that failed, or an answer without a user, as no acceptance", async () => {
    const forbidden = new ApiError({
      status: 403,
      verb: "POST",
      path: "/apis/authentication.k8s.io/v1/tokenreviews",
      body: JSON.stringify({ kind: "Status", message: "tokenreviews is forbidden", reason: "Forbidden", code: 403 }),
    });
    const failing = new TokenReviews(apiServer(() => forbidden).client);
    const answer = await failing.review("t");
    assert.deepEqual(answer, {
      outcome: "unavailable",
      reason: "the controller could not review the token: 403 tokenreviews is forbidden",
    });
    const anonymous = new TokenReviews(
      apiServer(() => ({
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        status: { authenticated: true, user: { username: "" } },
      })).client,
    );
    assert.equal((await anonymous.review("t")).outcome, "refused");
  });
});
