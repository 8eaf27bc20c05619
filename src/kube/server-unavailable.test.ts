import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, isServerUnavailable, TransportError } from "./errors.js";

const api = (status: number) => new ApiError({ status, verb: "PATCH", path: "/x" });

describe("isServerUnavailable", () => {
  it("is the server's failure: no answer, a 5xx, a 429 — also as the cause of a wrapping error", () => {
    assert.equal(
      isServerUnavailable(new TransportError("GET", "/x", { cause: new Error("connect ECONNREFUSED") })),
      true,
    );
    assert.equal(isServerUnavailable(api(503)), true);
    assert.equal(isServerUnavailable(api(500)), true);
    assert.equal(isServerUnavailable(api(429)), true);
    assert.equal(isServerUnavailable(new Error("reconcile: apply", { cause: api(503) })), true);
  });

  it("is not the request's failure, nor a plain error", () => {
    for (const status of [400, 403, 404, 409, 422])
      assert.equal(isServerUnavailable(api(status)), false, String(status));
    assert.equal(isServerUnavailable(new Error("resource error: forbidden")), false);
    assert.equal(isServerUnavailable(undefined), false);
  });
});
