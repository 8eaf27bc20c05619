import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bearerTokenOf, serviceAccountNamespace } from "./bearer-token.js";

describe("bearerTokenOf", () => {
  it("reads the Authorization header, or else the sign-in cookie", () => {
    assert.equal(bearerTokenOf({ authorization: "Bearer abc.def-ghi" }), "abc.def-ghi");
    assert.equal(bearerTokenOf({ authorization: "bearer   t0k  " }), "t0k");
    assert.equal(bearerTokenOf({ cookie: "a=1; kro-ui-token=eyJ%2Bx; b=2" }), "eyJ+x");
  });
  it("finds no token in a malformed header, another scheme, or an impersonation header", () => {
    assert.equal(bearerTokenOf({}), undefined);
    assert.equal(bearerTokenOf({ authorization: "Basic dXNlcjpwYXNz" }), undefined);
    assert.equal(bearerTokenOf({ authorization: "Bearer" }), undefined);
    assert.equal(bearerTokenOf({ authorization: "Bearer a b" }), undefined);
    assert.equal(
      bearerTokenOf({ authorization: "Basic x", cookie: "kro-ui-token=t" }),
      undefined,
      "a bad header is not rescued by the cookie",
    );
    assert.equal(bearerTokenOf({ "impersonate-user": "admin" }), undefined);
    assert.equal(bearerTokenOf({ cookie: "kro-ui-token=%E0%A4%A" }), undefined);
  });
});

describe("serviceAccountNamespace", () => {
  it("is the namespace of a ServiceAccount's user and nothing for other users", () => {
    assert.equal(serviceAccountNamespace("system:serviceaccount:team-a:viewer"), "team-a");
    assert.equal(serviceAccountNamespace("alice@example.com"), undefined);
    assert.equal(serviceAccountNamespace("system:serviceaccount:bad"), undefined);
  });
});
