import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closeWindow, openWindow, proveLoaded, SETTLE_MS, withinWindow, type BreachWindow } from "./breach-windows.js";

const write = (resourceVersion: string | undefined, observedAt: number) => ({ resourceVersion, observedAt });

function restored(fromRv: string | undefined, toRvs: (string | undefined)[], from = 1_000, to = 5_000): BreachWindow {
  const windows: BreachWindow[] = [];
  openWindow(windows, fromRv, from);
  closeWindow(windows, toRvs, to);
  assert.equal(windows.length, 1);
  return windows[0] as BreachWindow;
}

describe("breach windows", () => {
  it("judges a write by its revision, whenever the controller sees it: after the breach and up to the restore", () => {
    const window = restored("100", ["140", "150"]);
    // Seen long after the restore (the instance event was slow, or the reconcile waited): still inside.
    assert.equal(withinWindow(window, write("120", 60_000)), true);
    assert.equal(withinWindow(window, write("150", 60_000)), true);
    assert.equal(withinWindow(window, write("151", 60_000)), false);
    // Written before the breach: checked by the policy, even if seen during the breach.
    assert.equal(withinWindow(window, write("99", 2_000)), false);
  });

  it("distrusts writes after the restore for SETTLE_MS (the API server loads the policy asynchronously)", () => {
    const window = restored("100", ["150"]);
    assert.equal(withinWindow(window, write("151", 5_000 + SETTLE_MS - 1)), true);
    assert.equal(withinWindow(window, write("151", 5_000 + SETTLE_MS)), false);
  });

  it("once the load is proven, ends at the revision read after the proof, however late a write is seen", () => {
    const window = restored("100", ["150"]);
    proveLoaded(window, "180", 9_000);
    // Stored after the restore but before the API server enforced it, seen much later.
    assert.equal(withinWindow(window, write("170", 60_000)), true);
    assert.equal(withinWindow(window, write("180", 60_000)), true);
    assert.equal(withinWindow(window, write("181", 60_000)), false);
    // SETTLE_MS now counts from the proof: a request admitted just before it may be stored later.
    assert.equal(withinWindow(window, write("181", 9_000 + SETTLE_MS - 1)), true);
    assert.equal(withinWindow(window, write("99", 9_500)), false);
  });

  it("an open window holds every write after the breach", () => {
    const windows: BreachWindow[] = [];
    openWindow(windows, "100", 1_000);
    openWindow(windows, "120", 2_000);
    assert.equal(windows.length, 1, "a second breach while open extends the first");
    assert.equal(withinWindow(windows[0] as BreachWindow, write("10000", 99_000)), true);
    assert.equal(withinWindow(windows[0] as BreachWindow, write("99", 99_000)), false);
  });

  it("falls back to the time the write was seen when revisions are not decimal integers", () => {
    const window = restored(undefined, ["opaque"]);
    assert.equal(window.toRv, undefined);
    assert.equal(withinWindow(window, write("opaque-2", 3_000)), true);
    assert.equal(withinWindow(window, write("opaque-2", 500)), false);
    assert.equal(withinWindow(window, write("opaque-2", 5_000 + SETTLE_MS)), false);
  });
});
