import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  delegationPolicyObjects,
  delegationRulesOf,
  POLICY_PROBE_ANNOTATION,
  PROBE_EVENT_NAME,
} from "./delegation-policy-objects.js";

interface PolicySpec {
  matchConstraints: { resourceRules: { resources: string[]; resourceNames?: string[] }[] };
  validations: { expression: string }[];
}
const policyOf = (objects: Record<string, unknown>[]) =>
  objects.find((o) => o.kind === "ValidatingAdmissionPolicy")?.spec as PolicySpec;

describe("kro-delegation policy objects", () => {
  it("match the probe Event by name only, and refuse its annotation before judging anything else", () => {
    const spec = policyOf(delegationPolicyObjects());
    const probeRule = spec.matchConstraints.resourceRules.find((r) => r.resources.includes("events"));
    assert.deepEqual(probeRule?.resourceNames, [PROBE_EVENT_NAME]);
    assert.match(spec.validations[0]?.expression ?? "", new RegExp(POLICY_PROBE_ANNOTATION.replace(/[./]/g, "\\$&")));
  });

  it("without the probe are the rules an earlier controller installed: those judged delegations as well", () => {
    const spec = policyOf(delegationRulesOf(delegationPolicyObjects()));
    assert.deepEqual(
      spec.matchConstraints.resourceRules.map((r) => r.resources),
      [["resourcegraphdefinitions"]],
    );
    assert.equal(spec.validations.length, 1);
    assert.doesNotMatch(JSON.stringify(spec), /policy-probe/);
  });
});
