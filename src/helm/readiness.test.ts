import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseTemplate, renderTemplate } from "../template/index.js";
import { gatesLaterKinds, readyWhenFor } from "./readiness.js";

/** What a kind's readyWhen says of an observed object ("true"/"false"), as the template dialect renders it. */
function ready(kind: string, self: unknown): string {
  const [text] = readyWhenFor(kind);
  assert.ok(text !== undefined, `${kind} has a readyWhen`);
  return renderTemplate(parseTemplate("readyWhen", text), { self }).trim();
}

const crd = (...conditions: { type: string; status: string }[]) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.io" },
  spec: {},
  ...(conditions.length === 0 ? {} : { status: { conditions } }),
});

describe("Helm --wait readiness", () => {
  it("a CRD is ready once Established, or once its names were refused (Helm goes on then too)", () => {
    assert.equal(ready("CustomResourceDefinition", crd()), "false", "just created: no status yet");
    assert.equal(
      ready(
        "CustomResourceDefinition",
        crd({ type: "NamesAccepted", status: "True" }, { type: "Established", status: "False" }),
      ),
      "false",
    );
    assert.equal(
      ready(
        "CustomResourceDefinition",
        crd({ type: "NamesAccepted", status: "True" }, { type: "Established", status: "True" }),
      ),
      "true",
    );
    assert.equal(ready("CustomResourceDefinition", crd({ type: "NamesAccepted", status: "False" })), "true");
  });

  it("CRDs still gate the kinds Helm creates after them (a custom resource needs its CRD); --wait kinds do not", () => {
    assert.equal(gatesLaterKinds("CustomResourceDefinition"), true);
    assert.equal(gatesLaterKinds("ConfigMap"), true);
    assert.equal(gatesLaterKinds("Service"), false);
    assert.equal(gatesLaterKinds("Deployment"), false);
  });
});
