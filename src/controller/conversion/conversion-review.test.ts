import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { compileRgd } from "../../graph/index.js";
import { apiOfGraph } from "../../runtime/index.js";
import { reviewConversion } from "./conversion-review.js";
import { createServingCertificate, needsRotation } from "./serving-certificate.js";

const root = new URL("../../../../", import.meta.url);
const rgd = loadYaml("rgd", readFileSync(new URL("examples/versions/webapp-v1beta1.yaml", root), "utf8")).documents[0]
  ?.value as { spec: { schema: { versions: { conversion: { toHub: { spec: Record<string, unknown> } } }[] } } };
const apiOf = (value: unknown) => {
  const g = compileRgd(value).graph;
  const api = g === undefined ? undefined : apiOfGraph(g);
  assert.ok(api);
  return api;
};
const api = apiOf(rgd);
const object = {
  apiVersion: "kro.run/v1beta1",
  kind: "EvolvingApp",
  metadata: { name: "shop", namespace: "prod" },
  spec: { image: "x", ports: { http: 8080 }, owner: { team: "t" } },
};
const messageOf = (answer: ReturnType<typeof reviewConversion>): string => {
  assert.ok(answer);
  const result = answer.response.result;
  return result.status === "Failure" ? result.message : "";
};
const review = (objects: unknown[], desiredAPIVersion = "kro.run/v1alpha1") => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid: "u-1", desiredAPIVersion, objects },
});

describe("reviewConversion", () => {
  it("converts every object and echoes the uid", () => {
    const answer = reviewConversion(review([object, object]), (g, k) =>
      g === "kro.run" && k === "EvolvingApp" ? api : undefined,
    );
    assert.ok(answer);
    assert.equal(answer.response.uid, "u-1");
    assert.deepEqual(answer.response.result, { status: "Success" });
    assert.deepEqual(
      answer.response.convertedObjects?.map((o) => o.spec),
      [
        { image: "x", port: 8080, team: "t" },
        { image: "x", port: 8080, team: "t" },
      ],
    );
  });

  it("a failing expression fails the whole review with the object and the field named", () => {
    const broken = structuredClone(rgd);
    const first = broken.spec.schema.versions[0];
    assert.ok(first);
    first.conversion.toHub.spec.port = "${self.spec.ports.http / 0}";
    const answer = reviewConversion(review([object]), () => apiOf(broken));
    assert.match(
      messageOf(answer),
      /^EvolvingApp prod\/shop: converting EvolvingApp from v1beta1 to v1alpha1: spec\.port: /,
    );
    assert.equal(answer?.response.convertedObjects, undefined, "nothing is converted when one object fails");
  });

  it("a kind this replica does not know is a Failure naming it; a body that is no review is refused", () => {
    const answer = reviewConversion(review([object]), () => undefined);
    assert.match(messageOf(answer), /does not serve EvolvingApp\.kro\.run/);
    assert.equal(
      reviewConversion({ kind: "ConversionReview" }, () => api),
      undefined,
    );
    assert.equal(
      reviewConversion([1, 2], () => api),
      undefined,
    );
  });
});

describe("the webhook's serving certificate", async () => {
  const cert = await createServingCertificate(["127.0.0.1"], 30);
  it("is valid for its hosts and signed by its CA", () => {
    assert.equal(needsRotation(cert, ["127.0.0.1"], new Date()), false);
    assert.equal(needsRotation(cert, ["10.0.0.1"], new Date()), true, "another host needs another certificate");
  });
  it("rotates within the last third of its life", () => {
    assert.equal(needsRotation(cert, ["127.0.0.1"], new Date(Date.now() + 19 * 86_400_000)), false);
    assert.equal(needsRotation(cert, ["127.0.0.1"], new Date(Date.now() + 21 * 86_400_000)), true);
  });
});
