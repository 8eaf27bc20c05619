import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import type { KubeClient } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { StorageMigrations } from "./storage-migrations.js";

const target = { crdName: "webapps.kro.run", group: "kro.run", kind: "WebApp", plural: "webapps", version: "v1alpha1" };
const logger = createLogger({ level: "silent", name: "t", format: "text" });
/** A client whose every read fails, as an overloaded API server's would. */
const failing = {
  get: () => Promise.reject(new Error("the server was unable to return a response in the time allotted")),
} as unknown as KubeClient;
const settle = async () => {
  for (let i = 0; i < 5; i++)
    await new Promise<void>((resolve) => {
      setImmediate(resolve);
    });
};

describe("StorageMigrations: a failed migration comes back by itself", () => {
  it("asks for the RGD's reconcile again after 5 s, then after 10 s, not at once and not never", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const migrations = new StorageMigrations(failing, logger);
      let requeued = 0;
      migrations.ensure(target, () => {
        requeued++;
      });
      await settle();
      assert.equal(migrations.running(target.crdName), false, "the failed run is over");
      mock.timers.tick(4_999);
      assert.equal(requeued, 0, "not before the backoff");
      mock.timers.tick(1);
      assert.equal(requeued, 1, "the reconcile is asked for again");
      migrations.ensure(target, () => {
        requeued++;
      });
      await settle();
      mock.timers.tick(9_999);
      assert.equal(requeued, 1, "the second failure waits twice as long");
      mock.timers.tick(1);
      assert.equal(requeued, 2);
      await migrations.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it("reports its start and each failure with the retry's delay (the RGD's Events), and a finish", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const told: string[] = [];
      const reports = {
        started: () => told.push("started"),
        finished: (rewritten: number) => told.push(`finished ${rewritten}`),
        failed: (message: string, retryInMs: number) => told.push(`failed in ${retryInMs} ms: ${message}`),
      };
      const migrations = new StorageMigrations(failing, logger);
      migrations.ensure(target, () => undefined, reports);
      await settle();
      assert.deepEqual(told, [
        "started",
        "failed in 5000 ms: the server was unable to return a response in the time allotted",
      ]);
      await migrations.stop();
      // Nothing left to migrate (no storage version to move to): done at once, with nothing rewritten.
      const done = new StorageMigrations(
        {
          get: () => Promise.resolve({ metadata: { name: target.crdName }, spec: { versions: [] } }),
        } as unknown as KubeClient,
        logger,
      );
      told.length = 0;
      done.ensure(target, () => undefined, reports);
      await settle();
      assert.deepEqual(told, ["started", "finished 0"]);
      await done.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it("a stopped controller schedules no retry", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const migrations = new StorageMigrations(failing, logger);
      let requeued = 0;
      migrations.ensure(target, () => {
        requeued++;
      });
      await settle();
      await migrations.stop();
      mock.timers.tick(600_000);
      assert.equal(requeued, 0);
    } finally {
      mock.timers.reset();
    }
  });
});
