import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { crdNameFor, crdNamesFor } from "./crd-names.js";
import { pluralize } from "./pluralize.js";

describe("pluralize (flect rules)", () => {
  const cases: [string, string][] = [
    ["webapp", "webapps"],
    ["policy", "policies"],
    ["gateway", "gateways"],
    ["proxy", "proxies"],
    ["key", "keys"],
    ["ingress", "ingresses"],
    ["status", "statuses"],
    ["box", "boxes"],
    ["batch", "batches"],
    ["mesh", "meshes"],
    ["database", "databases"],
    ["cache", "caches"],
    ["person", "people"],
    ["salesperson", "salespeople"],
    ["child", "children"],
    ["index", "indices"],
    ["vertex", "vertices"],
    ["matrix", "matrices"],
    ["leaf", "leaves"],
    ["wolf", "wolves"],
    ["knife", "knives"],
    ["hive", "hives"],
    ["objective", "objectives"],
    ["criterion", "criteria"],
    ["sheep", "sheep"],
    ["series", "series"],
    ["potato", "potatoes"],
    ["photo", "photos"],
    ["radio", "radios"],
    ["video", "videoes"],
    ["quiz", "quizzes"],
    ["waltz", "waltzes"],
    ["analysis", "analyses"],
    ["datum", "data"],
    ["bus", "buses"],
    ["alias", "aliases"],
    ["axis", "axes"],
    ["toe", "toes"],
    ["users", "users"],
    ["people", "people"],
    ["news", "news"],
    ["api", "apis"],
    ["dns", "dnses"],
    ["vpn", "vpns"],
    ["id", "ids"],
    ["app", "apps"],
    ["cluster", "clusters"],
    ["man", "men"],
    ["human", "humans"],
    ["movie", "movies"],
    ["", ""],
  ];
  for (const [singular, plural] of cases) {
    it(`${singular} → ${plural}`, () => {
      assert.equal(pluralize(singular), plural);
    });
  }
});

describe("CRD names", () => {
  it("derives plural, singular and listKind from the kind", () => {
    assert.deepEqual(crdNamesFor("WebApp"), {
      kind: "WebApp",
      listKind: "WebAppList",
      plural: "webapps",
      singular: "webapp",
    });
    assert.deepEqual(crdNamesFor("Policy", { shortNames: ["pol"], categories: ["all"] }), {
      kind: "Policy",
      listKind: "PolicyList",
      plural: "policies",
      singular: "policy",
      shortNames: ["pol"],
      categories: ["all"],
    });
    assert.equal(crdNameFor("WebApp"), "webapps.kro.run");
    assert.equal(crdNameFor("Policy", "example.com"), "policies.example.com");
  });
});
