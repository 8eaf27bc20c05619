import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRolloutPolicy } from "../../graph/index.js";
import { previewWaves } from "./wave-preview.js";

const object = (name: string, extra: { labels?: Record<string, string>; pin?: string } = {}) => ({
  metadata: {
    name,
    namespace: "ns",
    creationTimestamp: "2026-01-01T00:00:00Z",
    ...(extra.labels === undefined ? {} : { labels: extra.labels }),
    ...(extra.pin === undefined ? {} : { annotations: { "kro.run/pin-graph-revision": extra.pin } }),
  },
});

describe("previewWaves", () => {
  it("puts each instance in the wave the planner would give it for the next revision, and pinned ones aside", () => {
    const policy = compileRolloutPolicy({
      waves: [
        { name: "canary", selector: { matchLabels: { canary: "true" } } },
        { name: "half", percent: 50 },
      ],
      pinning: { maxRevisionsBack: 1 },
    }).policy;
    assert.ok(policy !== undefined);
    const objects = [
      object("a", { labels: { canary: "true" } }),
      object("b"),
      object("c"),
      object("d"),
      object("e", { pin: "3" }),
    ];
    const waves = previewWaves(policy, "webapp", objects, 4);
    assert.deepEqual(waves.get("ns/a"), { kind: "wave", index: 0, name: "canary", of: 3 });
    assert.deepEqual(waves.get("ns/e"), { kind: "pinned", pin: "3" });
    const named = (n: string) => [...waves.values()].filter((w) => w.kind === "wave" && w.name === n).length;
    assert.equal(named("half"), 1, "half of the 4 moving instances, the canary counting");
    assert.equal(named("(rest)"), 2, "the rest in the implicit last wave");
  });
});
