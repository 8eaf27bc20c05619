import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDotPath, parseDotPath } from "./dot-path.js";

describe("dot paths of statusMappings", () => {
  const good: [string, (string | number)[]][] = [
    ["status.availableReplicas", ["status", "availableReplicas"]],
    ["spec.clusterIP", ["spec", "clusterIP"]],
    ["status.loadBalancer.ingress[0].ip", ["status", "loadBalancer", "ingress", 0, "ip"]],
    ["a[1][2].b-c", ["a", 1, 2, "b-c"]],
  ];
  for (const [text, steps] of good) {
    it(`parses ${text} and prints it back`, () => {
      assert.deepEqual(parseDotPath(text), { ok: true, steps });
      assert.equal(formatDotPath(steps), text);
    });
  }
  for (const bad of ["", "status.", ".status", "a..b", "a[x]", "a[-1]", "a[0", "[0]", "a]b"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      assert.equal(parseDotPath(bad).ok, false);
    });
  }
});
