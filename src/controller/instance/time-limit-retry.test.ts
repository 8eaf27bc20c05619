import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TIME_LIMIT_RETRY_MS, timeLimitRetry } from "./time-limit-retry.js";

describe("timeLimitRetry", () => {
  const limits = [
    'spec.resources[3].template.data.x: expression "…": evaluation pass exceeded its time limit of 2000 ms',
    'evaluation pass exceeded its time limit of 2000 ms before resource "db"',
    "templates/deployment.yaml:12: evaluation exceeded its time limit of 2000 ms",
    "the chart render exceeded its time limit of 2000 ms (its worker thread was stopped)",
  ];

  it("tries a time-limit miss again once per generation, whichever deadline it was", () => {
    for (const error of limits) {
      const retried = new Map<string, number>();
      assert.equal(timeLimitRetry(retried, "ns/a", 1, error), TIME_LIMIT_RETRY_MS, error);
      assert.equal(timeLimitRetry(retried, "ns/a", 1, error), undefined, "a second miss stays ERROR");
      assert.equal(timeLimitRetry(retried, "ns/b", 1, error), TIME_LIMIT_RETRY_MS, "per instance");
      assert.equal(timeLimitRetry(retried, "ns/a", 2, error), TIME_LIMIT_RETRY_MS, "a new generation: once more");
    }
  });

  it("leaves every other outcome alone", () => {
    const retried = new Map<string, number>();
    assert.equal(timeLimitRetry(retried, "ns/a", 1, undefined), undefined);
    assert.equal(timeLimitRetry(retried, "ns/a", 1, 'No such key: replicsa (did you mean "replicas"?)'), undefined);
    assert.equal(timeLimitRetry(retried, "ns/a", 1, "cost limit exceeded"), undefined);
    assert.equal(retried.size, 0);
  });
});
