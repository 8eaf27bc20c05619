import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assignShards, shardOf, shardsFor } from "./shard-assignment.js";

describe("shard assignment", () => {
  it("gives every member a fair share (⌊S/M⌋ or ⌈S/M⌉) and every shard exactly one member", () => {
    for (const shards of [1, 7, 16, 64]) {
      for (let m = 1; m <= 9; m++) {
        const members = Array.from({ length: m }, (_, i) => `replica-${i}`);
        const assignment = assignShards(shards, members);
        assert.equal(assignment.size, shards);
        const counts = members.map((id) => shardsFor(assignment, id).size);
        assert.equal(
          counts.reduce((a, b) => a + b, 0),
          shards,
        );
        assert.ok(
          Math.max(...counts) - Math.min(...counts) <= 1,
          `${shards} shards over ${m}: ${JSON.stringify(counts)}`,
        );
      }
    }
  });

  it("is the same whatever the order or duplicates of the member list (every replica computes it alone)", () => {
    const a = assignShards(16, ["b", "a", "c"]);
    assert.deepEqual([...assignShards(16, ["c", "a", "b", "a"])], [...a]);
    assert.equal(assignShards(16, []).size, 0);
  });

  it("moves few shards when a member joins (rendezvous ranking)", () => {
    const before = assignShards(64, ["a", "b", "c"]);
    const after = assignShards(64, ["a", "b", "c", "d"]);
    const moved = [...before].filter(([shard, member]) => after.get(shard) !== member).length;
    assert.ok(moved <= 32, `moved ${moved} of 64 (16 must move to the newcomer)`);
    assert.equal(shardsFor(after, "d").size, 16);
  });

  it("spreads keys evenly and stably over shards", () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) {
      const s = shardOf(JSON.stringify(["web", "default", `app-${i}`]), 16);
      counts[s] = (counts[s] ?? 0) + 1;
    }
    assert.ok(Math.min(...counts) > 850 && Math.max(...counts) < 1150, JSON.stringify(counts));
    assert.equal(shardOf("x", 16), shardOf("x", 16));
  });
});
