import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { completionContext } from "./completion-context.js";

describe("completionContext", () => {
  const cases: [string, ReturnType<typeof completionContext>][] = [
    ["  name: ${", { chain: [], typed: "" }],
    ["  name: ${dep", { chain: [], typed: "dep" }],
    ["  name: ${ a + de", { chain: [], typed: "de" }],
    ["  name: ${schema.spec.", { chain: ["schema", "spec"], typed: "" }],
    ["  name: ${schema.spec.ing", { chain: ["schema", "spec"], typed: "ing" }],
    ["  x: ${deploy.status.?avail", { chain: ["deploy", "status"], typed: "avail", optional: true }],
    ["  x: ${deploy.status.avail", { chain: ["deploy", "status"], typed: "avail" }],
    [
      "  x: ${deploy.spec.template.spec.containers[0].",
      { chain: ["deploy", "spec", "template", "spec", "containers", 0], typed: "" },
    ],
    ["  x: ${a.b}-${svc.meta", { chain: ["svc"], typed: "meta" }],
    // closed, outside, or after something that is not a chain from a name
    ["  x: ${a.b} and b.", undefined],
    ["  x: schema.spec.", undefined],
    ["  x: ${f(x).", undefined],
    ['  x: ${"}" + schema.', { chain: ["schema"], typed: "" }],
  ];
  for (const [prefix, expected] of cases) {
    it(JSON.stringify(prefix), () => {
      assert.deepEqual(completionContext(prefix), expected);
    });
  }
});
