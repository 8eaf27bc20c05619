import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InstanceMemory } from "./instance-memory.js";

describe("InstanceMemory", () => {
  it("forgets everything about one instance, in every holder, and nothing about the others", () => {
    const memory = new InstanceMemory();
    const forgotten: string[] = [];
    memory.alsoHeldBy((key) => forgotten.push(`watches:${key}`));
    memory.alsoHeldBy((key) => forgotten.push(`guard:${key}`));
    memory.statusWritten.set("uid-a", "fp-a");
    memory.statusWritten.set("uid-b", "fp-b");
    memory.deletionWaits.set("web/ns/a", 3);
    memory.deletionWaits.set("web/ns/b", 1);
    memory.forget("web/ns/a", "uid-a");
    assert.deepEqual([...memory.statusWritten.keys()], ["uid-b"]);
    assert.deepEqual([...memory.deletionWaits.keys()], ["web/ns/b"]);
    assert.deepEqual(forgotten, ["watches:web/ns/a", "guard:web/ns/a"]);
  });

  it("without a UID (a pass that found the instance gone) forgets what is keyed by name", () => {
    const memory = new InstanceMemory();
    memory.statusWritten.set("uid-a", "fp");
    memory.deletionWaits.set("web/ns/a", 2);
    memory.forget("web/ns/a", undefined);
    assert.equal(memory.deletionWaits.size, 0);
    assert.equal(memory.statusWritten.size, 1, "the informer's deletion, which has the UID, forgets the rest");
  });

  it("a new shard tenure forgets every written status, and only that", () => {
    const memory = new InstanceMemory();
    memory.statusWritten.set("uid-a", "fp");
    memory.deletionWaits.set("web/ns/a", 2);
    memory.forgetWrittenStatuses();
    assert.equal(memory.statusWritten.size, 0);
    assert.equal(memory.deletionWaits.size, 1);
  });
});
