import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Verdict } from "./dev-state.js";
import { VerdictPrinter, verdictLine } from "./dev-verdict.js";

const verdict = (o: Partial<Verdict>): Verdict => ({
  ready: 2,
  total: 2,
  settled: true,
  notReady: [],
  rgdProblems: [],
  ...o,
});

describe("the kro dev verdict line", () => {
  it("says nothing while converging or with nothing to track", () => {
    assert.equal(verdictLine(verdict({ settled: false }), "examples"), undefined);
    assert.equal(verdictLine(verdict({ ready: 0, total: 0 }), "examples"), undefined);
  });

  it("all Ready, or how many and which are not, with the RGDs' problems", () => {
    assert.equal(verdictLine(verdict({}), "examples"), "kro-ts: all examples Ready");
    assert.equal(
      verdictLine(
        verdict({
          ready: 1,
          notReady: ["webapp/demo: ERROR"],
          rgdProblems: ["ResourceGraphDefinition webapp: Ready=False: bad"],
        }),
        "instances",
      ),
      "kro-ts: 1 of 2 instances Ready; not Ready:\n  webapp/demo: ERROR\n  but ResourceGraphDefinition webapp: Ready=False: bad",
    );
  });

  it("prints a line once, again only when it changes or after the files changed", () => {
    const printer = new VerdictPrinter("examples");
    assert.equal(printer.next(verdict({})), "kro-ts: all examples Ready");
    assert.equal(printer.next(verdict({})), undefined);
    assert.match(printer.next(verdict({ ready: 1, notReady: ["x: y"] })) ?? "", /1 of 2/);
    printer.reset();
    assert.match(printer.next(verdict({ ready: 1, notReady: ["x: y"] })) ?? "", /1 of 2/);
  });
});
