/**
 * The controller's instance queue as built for it: namespaces (then RGDs) are flows with fair
 * shares of the workers, and each namespace's queue wait is measured.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock } from "../../test/support/manual-clock.js";
import { ControllerMetrics } from "../observability/index.js";
import { instanceKey } from "./context/index.js";
import { instanceWorkQueue } from "./controller-context-factory.js";

describe("the controller's instance queue", () => {
  it("hands a quiet namespace's instance out before a busy namespace's backlog, and measures each namespace's wait", async () => {
    const clock = new ManualClock();
    const metrics = new ControllerMetrics({ processMetrics: false });
    const queue = instanceWorkQueue(clock, metrics);
    const busy = (i: number) => instanceKey("heavy", "team-busy", `h${i}`);
    for (let i = 0; i < 10; i++) queue.addFresh(busy(i));
    const first = await queue.get();
    assert.equal(first, busy(0));
    await clock.advance(1500);
    queue.done(busy(0));
    queue.addFresh(instanceKey("web", "team-quiet", "w0"));
    assert.equal(await queue.get(), instanceKey("web", "team-quiet", "w0"), "behind nine others of another namespace");
    queue.done(instanceKey("web", "team-quiet", "w0"));
    assert.equal(await queue.get(), busy(1));
    const waits = (await metrics.namespaceQueueWait.get()).values.filter(
      (v) => v.metricName === "kro_namespace_queue_wait_seconds_count",
    );
    assert.deepEqual(Object.fromEntries(waits.map((v) => [v.labels.namespace, v.value])), {
      "team-busy": 2,
      "team-quiet": 1,
    });
    queue.shutDown();
  });

  it("within a namespace, an RGD whose instances used the workers waits behind another RGD's", async () => {
    const clock = new ManualClock();
    const queue = instanceWorkQueue(clock, undefined);
    for (let i = 0; i < 5; i++) queue.add(instanceKey("heavy", "team", `h${i}`));
    const first = await queue.get();
    await clock.advance(800);
    queue.done(first ?? "");
    queue.add(instanceKey("light", "team", "l0"));
    assert.equal(await queue.get(), instanceKey("light", "team", "l0"));
    queue.shutDown();
  });
});
