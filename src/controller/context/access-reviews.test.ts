// The write gate's cache of SubjectAccessReviews: an answer is as old as its question.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AccessReviews } from "./access-reviews.js";

/** A client whose reviews are answered by the test, one at a time, in any order. */
function slowClient() {
  const pending: { resolve: (allowed: boolean) => void }[] = [];
  let asked = 0;
  return {
    pending,
    asked: () => asked,
    client: {
      review: (body: Record<string, unknown>) => {
        asked++;
        return new Promise<Record<string, unknown>>((resolve) => {
          pending.push({
            resolve: (allowed) => {
              resolve({ ...body, status: { allowed } });
            },
          });
        });
      },
    },
  };
}

const question = { user: "gina", groups: ["devs"], group: "", resource: "configmaps", verb: "create", namespace: "a" };

describe("AccessReviews", () => {
  it("trusts an answer for the lifetime counted from when it was asked, not from when it arrived", async () => {
    let now = 0;
    const api = slowClient();
    const reviews = new AccessReviews(api.client as never, 1_000, () => now);
    const first = reviews.allowed(question);
    now = 1_500; // the answer took longer than the cache's lifetime (a busy API server)
    api.pending.shift()?.resolve(true);
    assert.equal(await first, true, "the pass that asked uses its answer");
    const second = reviews.allowed(question);
    assert.equal(api.asked(), 2, "an answer given before now - lifetime is asked again");
    api.pending.shift()?.resolve(false);
    assert.equal(await second, false);
    now = 1_900;
    assert.equal(await reviews.allowed(question), false, "the fresh answer is cached");
    assert.equal(api.asked(), 2);
  });

  it("a late answer to an older question never replaces a newer one", async () => {
    let now = 0;
    const api = slowClient();
    const reviews = new AccessReviews(api.client as never, 1_000, () => now);
    const old = reviews.allowed(question);
    now = 500;
    const fresh = reviews.allowed(question);
    api.pending[1]?.resolve(false); // the revocation is seen by the newer question…
    assert.equal(await fresh, false);
    api.pending[0]?.resolve(true); // …and the older question's answer arrives after it
    assert.equal(await old, true);
    assert.equal(await reviews.allowed(question), false, "the newer answer stands");
    assert.equal(api.asked(), 2);
  });
});
