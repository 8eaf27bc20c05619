import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { routeOf } from "./page-routes.js";

describe("web view addresses", () => {
  it("names the overview, an RGD and an instance, `_` standing for no namespace", () => {
    assert.deepEqual(routeOf("/"), { page: "overview" });
    assert.deepEqual(routeOf("/view"), { page: "overview" });
    assert.deepEqual(routeOf("/rgds/web-app"), { page: "rgd", rgd: "web-app" });
    assert.deepEqual(routeOf("/instances/web-app/team-a/shop"), {
      page: "instance",
      rgd: "web-app",
      namespace: "team-a",
      name: "shop",
    });
    assert.deepEqual(routeOf("/instances/cluster-thing/_/global"), {
      page: "instance",
      rgd: "cluster-thing",
      name: "global",
    });
  });

  it("decodes escaped parts and names no page for anything else", () => {
    assert.deepEqual(routeOf("/rgds/a%2Fb"), { page: "rgd", rgd: "a/b" });
    for (const path of [
      "/rgds",
      "/rgds/",
      "/rgds/a/b",
      "/instances/a/b",
      "/instances/a//c",
      "/rgds/%E0%A4%A",
      "/secrets",
    ])
      assert.equal(routeOf(path), undefined, path);
  });
});
