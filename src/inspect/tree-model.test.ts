import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { humanAge } from "./human-age.js";
import { applyErrorsFrom } from "./tree-model.js";

const withMessage = (message: string, status = "False") => ({
  status: { conditions: [{ type: "ResourcesReady", status, message }] },
});

describe("applyErrorsFrom", () => {
  it("splits the controller's ResourcesReady message at the graph's ids, keeping '; ' inside a message", () => {
    const errors = applyErrorsFrom(
      withMessage("at least one resource reports an error: portal: 422 Invalid: a; b; svc-2: 403 Forbidden"),
      ["svc", "portal", "svc-2"],
    );
    assert.deepEqual(
      [...errors],
      [
        ["portal", "422 Invalid: a; b"],
        ["svc-2", "403 Forbidden"],
      ],
    );
  });
  it("finds nothing in other messages or in a True condition", () => {
    assert.equal(applyErrorsFrom(withMessage("waiting for resource resolution: portal: x"), ["portal"]).size, 0);
    assert.equal(
      applyErrorsFrom(withMessage("at least one resource reports an error: portal: x", "True"), ["portal"]).size,
      0,
    );
    assert.equal(applyErrorsFrom({}, ["portal"]).size, 0);
  });
});

describe("humanAge", () => {
  it("matches kubectl's AGE column", () => {
    const s = 1000;
    assert.deepEqual(
      [
        0,
        59 * s,
        119 * s,
        150 * s,
        600 * s,
        179 * 60 * s,
        3 * 3600 * s + 5 * 60 * s,
        30 * 3600 * s,
        50 * 3600 * s,
        48 * 3600 * s,
        30 * 86400 * s,
        800 * 86400 * s,
      ].map(humanAge),
      ["0s", "59s", "119s", "2m30s", "10m", "179m", "3h5m", "30h", "2d2h", "2d", "30d", "2y"],
    );
  });
});
