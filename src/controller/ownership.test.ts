import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ownershipConflict } from "./ownership.js";

const cm = (labels?: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace: "ns", ...(labels === undefined ? {} : { labels }) } });
const of = (name: string, uid = `uid-${name}`, extra: Record<string, string> = {}) => cm({
  "kro.run/instance-id": uid, "kro.run/instance-group": "kro.run", "kro.run/instance-kind": "App", "kro.run/instance-namespace": "ns", "kro.run/instance-name": name, ...extra,
});

describe("ownershipConflict", () => {
  it("refuses an object another instance created, naming that instance", () => {
    assert.equal(ownershipConflict(of("second"), of("first")), "the object belongs to another instance (App.kro.run ns/first); refusing to take it over");
  });
  it("tells instances of different kinds or namespaces apart", () => {
    assert.match(ownershipConflict(of("x"), of("x", "u", { "kro.run/instance-kind": "Other" })) ?? "", /Other\.kro\.run ns\/x/);
    assert.match(ownershipConflict(of("x"), of("x", "u", { "kro.run/instance-namespace": "elsewhere" })) ?? "", /elsewhere\/x/);
  });
  it("allows our own object, a missing one, and one nobody labelled (adoption)", () => {
    assert.equal(ownershipConflict(of("first"), of("first")), undefined);
    assert.equal(ownershipConflict(of("first"), undefined), undefined);
    assert.equal(ownershipConflict(of("first"), cm({ team: "x" })), undefined);
    assert.equal(ownershipConflict(of("first"), cm()), undefined);
  });
  it("lets an instance recreated under the same name adopt what its predecessor left (kro's ApplySet id has no UID)", () => {
    assert.equal(ownershipConflict(of("first", "new-uid"), of("first", "old-uid")), undefined);
  });
});
