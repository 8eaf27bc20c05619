// The RGD author record's admission objects: a webhook per RGD selector, and the policy's rule.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  RECORDS_THE_WRITER,
  rgdAuthorPolicyObjects,
  rgdAuthorWebhookName,
  rgdAuthorWebhookObject,
  WRITES_AUTHORSHIP,
} from "./rgd-author-admission.js";

const clientConfig = { url: "https://127.0.0.1:9443/rgd-author", caBundle: "Y2E=" };

describe("the RGD author record's admission", () => {
  it("one webhook per RGD selector, matching only the RGDs the controller serves, never its own writes", () => {
    assert.equal(rgdAuthorWebhookName(undefined), "kro-rgd-author");
    assert.notEqual(rgdAuthorWebhookName("team=a"), rgdAuthorWebhookName("team=b"));
    const hook = rgdAuthorWebhookObject({
      rgdSelector: "team=a",
      clientConfig,
      controllerUser: "system:serviceaccount:kro:kro",
    }) as {
      webhooks: { objectSelector: unknown; failurePolicy: string; matchConditions: { expression: string }[] }[];
    };
    const webhook = hook.webhooks[0];
    assert.ok(webhook);
    assert.deepEqual(webhook.objectSelector, { matchLabels: { team: "a" } });
    assert.equal(webhook.failurePolicy, "Ignore", "a controller that is down never blocks RGD writes");
    assert.deepEqual(
      webhook.matchConditions.map((c) => c.expression),
      ['request.userInfo.username != "system:serviceaccount:kro:kro"'],
    );
    const everything = rgdAuthorWebhookObject({ rgdSelector: undefined, clientConfig, controllerUser: "kro" }) as {
      webhooks: { objectSelector: unknown }[];
    };
    assert.deepEqual(everything.webhooks[0]?.objectSelector, {});
  });

  it("the policy fails closed and judges only writes of the spec or the record", () => {
    const [policy, binding] = rgdAuthorPolicyObjects() as { spec: Record<string, unknown> }[];
    assert.equal(policy?.spec.failurePolicy, "Fail");
    assert.deepEqual(binding?.spec, { policyName: "kro-rgd-author", validationActions: ["Deny"] });
    const [validation] = policy.spec.validations as { expression: string }[];
    assert.equal(validation?.expression, `!(${WRITES_AUTHORSHIP}) || (${RECORDS_THE_WRITER})`);
    assert.match(WRITES_AUTHORSHIP, /object\.spec != oldObject\.spec/);
    assert.match(RECORDS_THE_WRITER, /request\.userInfo\.username/);
  });
});
