import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { sameOrigin, signInPage, tokenCookie } from "./sign-in.js";

const posted = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe("the sign-in form", () => {
  it("is accepted only from the server's own page", () => {
    assert.equal(
      sameOrigin(posted({ "sec-fetch-site": "same-origin", origin: "null", host: "localhost:8082" }), false),
      true,
    );
    assert.equal(
      sameOrigin(
        posted({ "sec-fetch-site": "cross-site", origin: "http://localhost:8082", host: "localhost:8082" }),
        false,
      ),
      false,
    );
    assert.equal(sameOrigin(posted({ origin: "http://localhost:8082", host: "localhost:8082" }), false), true);
    assert.equal(
      sameOrigin(posted({ origin: "http://localhost:8082", host: "localhost:8082" }), true),
      false,
      "https page, http origin",
    );
    assert.equal(sameOrigin(posted({ origin: "http://evil.example", host: "localhost:8082" }), false), false);
    assert.equal(sameOrigin(posted({ host: "localhost:8082" }), false), false, "neither header: not provably ours");
  });
  it("keeps the token in an HttpOnly, SameSite=Strict cookie, Secure over HTTPS", () => {
    assert.equal(tokenCookie("a+b", false, 60), "kro-ui-token=a%2Bb; Path=/; HttpOnly; SameSite=Strict; Max-Age=60");
    assert.match(tokenCookie("t", true, 60), /; Secure$/);
  });
  it("escapes the problem it reports", () => {
    assert.match(signInPage("<script>x</script>"), /&lt;script&gt;x&lt;\/script&gt;/);
    assert.doesNotMatch(signInPage("<script>x</script>"), /<script>/);
  });
});
