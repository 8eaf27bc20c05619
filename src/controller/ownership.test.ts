import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ownershipConflict } from "./ownership.js";

const cm = (labels?: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace: "ns", ...(labels === undefined ? {} : { labels }) } });
const of = (id: string, name: string) => cm({ "kro.run/instance-id": id, "kro.run/instance-kind": "App", "kro.run/instance-namespace": "ns", "kro.run/instance-name": name });

describe("ownershipConflict", () => {
  it("refuses an object another instance created, naming that instance", () => {
    assert.equal(ownershipConflict(of("b", "second"), of("a", "first")), "the object belongs to another instance (App ns/first); refusing to take it over");
  });
  it("allows our own object, a missing one, and one nobody labelled (adoption)", () => {
    assert.equal(ownershipConflict(of("a", "first"), of("a", "first")), undefined);
    assert.equal(ownershipConflict(of("a", "first"), undefined), undefined);
    assert.equal(ownershipConflict(of("a", "first"), cm({ team: "x" })), undefined);
    assert.equal(ownershipConflict(of("a", "first"), cm()), undefined);
  });
  it("falls back to the instance id when the owner's other labels are gone", () => {
    assert.match(ownershipConflict(of("b", "second"), cm({ "kro.run/instance-id": "a" })) ?? "", /instance id a/);
  });
});
