import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ServerReachability } from "./server-reachability.js";

const settle = (p: Promise<void>, ms: number) =>
  Promise.race([
    p.then(() => true),
    new Promise<boolean>((resolve) =>
      setTimeout(() => {
        resolve(false);
      }, ms),
    ),
  ]);

describe("server reachability", () => {
  it("wakes every waiter when a probe succeeds after a failed one, with one probe for all", async () => {
    const answers = [false, false, true];
    let probes = 0;
    const r = new ServerReachability({ probe: () => Promise.resolve(answers[probes++] ?? true), probeIntervalMs: 10 });
    const signal = new AbortController().signal;
    const woken = await Promise.all([settle(r.whenBack(signal), 1_000), settle(r.whenBack(signal), 1_000)]);
    assert.deepEqual(woken, [true, true]);
    assert.equal(probes, 3);
    r.close();
  });

  it("does not wake anyone when the server never looked down (no reconnect storm)", async () => {
    let probes = 0;
    const r = new ServerReachability({
      probe: () => {
        probes++;
        return Promise.resolve(true);
      },
      probeIntervalMs: 10,
    });
    const stop = new AbortController();
    assert.equal(await settle(r.whenBack(stop.signal), 200), false);
    assert.equal(probes, 1);
    stop.abort();
    r.close();
  });
});
