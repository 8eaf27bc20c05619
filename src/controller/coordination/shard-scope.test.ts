import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ShardScope, withShardSelector } from "./shard-scope.js";

describe("ShardScope", () => {
  it("selects the held shards and strays: notin the shards held elsewhere", () => {
    const scope = new ShardScope(4);
    assert.equal(scope.selector(), "kro.run/shard notin (0,1,2,3)", "nothing held: strays only");
    assert.equal(scope.set([1, 3]), true);
    assert.equal(scope.selector(), "kro.run/shard notin (0,2)");
    assert.equal(scope.set([3, 1]), false, "same set: no restart");
    assert.equal(scope.set([0, 1, 2, 3]), true);
    assert.equal(scope.selector(), undefined, "everything held: no filter at all");
  });

  it("joins the managed-by selector", () => {
    const scope = new ShardScope(2);
    scope.set([0]);
    assert.equal(
      withShardSelector("app.kubernetes.io/managed-by=kro", scope),
      "app.kubernetes.io/managed-by=kro,kro.run/shard notin (1)",
    );
    assert.equal(withShardSelector(undefined, scope), "kro.run/shard notin (1)");
    assert.equal(withShardSelector("a=b", undefined), "a=b");
  });

  it("reads only valid shard labels: absent, garbage and out-of-range values name no shard", () => {
    const scope = new ShardScope(8);
    assert.equal(scope.parse("7"), 7);
    assert.equal(scope.parse("0"), 0);
    for (const bad of [undefined, "", "8", "-1", "07", "x", "1.0", "99999"])
      assert.equal(scope.parse(bad), undefined, String(bad));
  });

  it("labels follow the key's shard", () => {
    const scope = new ShardScope(8);
    const key = "rgd/ns/name";
    assert.equal(scope.labelOf(key), String(scope.shardOf(key)));
  });
});
