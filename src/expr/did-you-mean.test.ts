import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closestName, didYouMean } from "./did-you-mean.js";
import { checkExpression } from "./check.js";
import { createKroCelEnvironment } from "./environment.js";

describe("did you mean", () => {
  it("finds the name meant through a case slip, a swap, a missing or an extra letter — and nothing for a different name", () => {
    const fields = ["replicas", "selector", "template", "clusterIP", "ports"];
    assert.equal(closestName("clusterIp", fields), "clusterIP");
    assert.equal(closestName("replicsa", fields), "replicas");
    assert.equal(closestName("replica", fields), "replicas");
    assert.equal(closestName("selectorr", fields), "selector");
    assert.equal(closestName("image", fields), undefined);
    assert.equal(closestName("port", ["ports", "part"]), "ports", "the closest of two wins; ties keep the first");
    assert.equal(didYouMean("x", fields), "");
    assert.equal(didYouMean("tempalte", fields), ' (did you mean "template"?)');
  });

  it("the checker suggests the resource id or the schema field an expression misspelt", () => {
    const env = createKroCelEnvironment();
    const variables = {
      schema: {
        type: "object",
        properties: {
          spec: { type: "object", properties: { replicas: { type: "integer" }, image: { type: "string" } } },
        },
      },
      deployment: {
        type: "object",
        properties: { metadata: { type: "object", properties: { name: { type: "string" } } } },
      },
    };
    const messages = (expression: string) =>
      checkExpression(env, expression, variables)
        .issues.map((i) => i.message)
        .join("\n");
    assert.match(messages("schema.spec.replicsa + 1"), /No such key: replicsa \(did you mean "replicas"\?\)/);
    assert.match(messages("deploymnet.metadata.name"), /Unknown variable: deploymnet \(did you mean "deployment"\?\)/);
    assert.match(messages("deployment.metadata.nmae"), /\(did you mean "name"\?\)/);
    assert.doesNotMatch(messages("schema.spec.zzz"), /did you mean/);
  });
});
