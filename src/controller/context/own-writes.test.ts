import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OwnWrites } from "./own-writes.js";

const cm = (name: string, resourceVersion: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { namespace: "ns", name, resourceVersion },
});

/** A write whose answer the test releases by hand, as the API server's response arriving late. */
function pendingWrite<T>(): { promise: Promise<T>; answer: (value: T) => void; fail: (error: Error) => void } {
  let answer!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    answer = resolve;
    fail = reject;
  });
  return { promise, answer, fail };
}

/** An OwnWrites inside a pass of "inst", and a list for the events it delivers. */
function started(): { writes: OwnWrites; delivered: string[] } {
  const writes = new OwnWrites();
  writes.beginPass("inst");
  return { writes, delivered: [] };
}

describe("OwnWrites", () => {
  it("drops the echo that arrives before the answer, and delivers what else arrived meanwhile", async () => {
    const { writes, delivered } = started();
    const response = pendingWrite<ReturnType<typeof cm>>();
    const written = writes.write(cm("a", ""), "inst", () => response.promise);
    writes.observe(cm("a", "7"), () => {
      delivered.push("someone else's write at 7");
    });
    writes.observe(cm("a", "9"), () => {
      delivered.push("the echo at 9");
    });
    writes.observe(cm("b", "9"), () => {
      delivered.push("another object");
    });
    assert.deepEqual(delivered, ["another object"], "events for an object with a write in flight wait for its answer");
    response.answer(cm("a", "9"));
    await written;
    assert.deepEqual(delivered, ["another object", "someone else's write at 7"]);
    assert.deepEqual(writes.outstanding, { answered: 0, inFlight: 0 });
  });

  it("drops the echo that arrives after the answer, once", async () => {
    const { writes, delivered } = started();
    await writes.write(cm("a", ""), "inst", () => Promise.resolve(cm("a", "9")));
    writes.observe(cm("a", "9"), () => {
      delivered.push("echo");
    });
    writes.observe(cm("a", "9"), () => {
      delivered.push("the same version again (a relist)");
    });
    writes.observe(cm("a", "11"), () => {
      delivered.push("a later change");
    });
    assert.deepEqual(delivered, ["the same version again (a relist)", "a later change"]);
  });

  it("delivers everything parked when the write fails, and remembers nothing", async () => {
    const { writes, delivered } = started();
    const response = pendingWrite<ReturnType<typeof cm>>();
    const written = writes.write(cm("a", ""), "inst", () => response.promise);
    writes.observe(cm("a", "9"), () => {
      delivered.push("event at 9");
    });
    response.fail(new Error("409"));
    await assert.rejects(written, /409/);
    assert.deepEqual(delivered, ["event at 9"]);
    assert.deepEqual(writes.outstanding, { answered: 0, inFlight: 0 });
  });

  it("an event at another version than the answer is delivered, and the answer forgotten with it", async () => {
    const { writes, delivered } = started();
    await writes.write(cm("a", ""), "inst", () => Promise.resolve(cm("a", "9")));
    writes.observe(cm("a", "12"), () => {
      delivered.push("12");
    });
    writes.observe(cm("a", "9"), () => {
      delivered.push("9, late");
    });
    assert.deepEqual(delivered, ["12", "9, late"]);
    await writes.write(cm("b", ""), "inst", () => Promise.resolve(cm("b", "3")));
    writes.forget(cm("b", "4"));
    writes.observe(cm("b", "3"), () => {
      delivered.push("b after its deletion");
    });
    assert.deepEqual(delivered, ["12", "9, late", "b after its deletion"]);
  });

  it("an echo that arrives after another pass of the instance began is delivered: that pass read the caches without the answer", async () => {
    const writes = new OwnWrites();
    const delivered: string[] = [];
    writes.beginPass("inst");
    await writes.write(cm("a", ""), "inst", () => Promise.resolve(cm("a", "9")));
    await writes.write(cm("b", ""), "inst", () => Promise.resolve(cm("b", "4")));
    writes.beginPass("other");
    writes.observe(cm("a", "9"), () => {
      delivered.push("a: no pass of inst since");
    });
    writes.beginPass("inst");
    writes.observe(cm("b", "4"), () => {
      delivered.push("b: a later pass of inst began");
    });
    assert.deepEqual(delivered, ["b: a later pass of inst began"]);
  });

  it("a write made outside any known pass is never taken for an echo", async () => {
    const writes = new OwnWrites();
    const delivered: string[] = [];
    await writes.write(cm("a", ""), "unknown", () => Promise.resolve(cm("a", "9")));
    writes.observe(cm("a", "9"), () => {
      delivered.push("delivered");
    });
    assert.deepEqual(delivered, ["delivered"]);
  });
});
