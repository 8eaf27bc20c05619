import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeJson, NodeEvaluation } from "../../runtime/index.js";
import type { OwnedChild } from "./inventory.js";
import { vanishedRunCandidates } from "./hook-run-record.js";

const object = (kind: string, name: string, hook?: string): KubeJson => ({
  apiVersion: kind === "Job" ? "batch/v1" : "v1",
  kind,
  metadata: { name, namespace: "ns", ...(hook === undefined ? {} : { annotations: { "helm.sh/hook": hook } }) },
});
const node = (desired: KubeJson[], excluded = false): Pick<NodeEvaluation, "excluded" | "desired"> => ({
  excluded,
  desired,
});
const entry = (o: KubeJson, ownership: OwnedChild["ownership"] = "created"): OwnedChild => {
  const metadata = o.metadata as { name: string; namespace: string };
  return {
    apiVersion: String(o.apiVersion),
    kind: String(o.kind),
    namespace: metadata.namespace,
    name: metadata.name,
    uid: `uid-${metadata.name}`,
    nodeId: "n",
    ownership,
  };
};
const names = (found: { object: KubeJson }[]) => found.map((f) => (f.object.metadata as { name: string }).name);

describe("hook runs that may have vanished", () => {
  const migrate = object("Job", "rel-migrate", "pre-install");
  const pod = object("Pod", "rel-check", "post-install");
  const seed = object("ConfigMap", "rel-seed", "pre-install");
  const app = object("Job", "rel-app");

  it("are the hook Jobs and Pods we created that the pass does not see", () => {
    const found = vanishedRunCandidates(
      [node([migrate, app]), node([pod]), node([seed])],
      [entry(migrate), entry(pod), entry(seed), entry(app)],
      () => false,
    );
    assert.deepEqual(names(found), ["rel-migrate", "rel-check"]);
  });

  it("not one the pass sees, nor one we never created (not recorded, or adopted), nor an excluded node's", () => {
    assert.deepEqual(names(vanishedRunCandidates([node([migrate])], [entry(migrate)], () => true)), []);
    assert.deepEqual(names(vanishedRunCandidates([node([migrate])], [], () => false)), []);
    assert.deepEqual(names(vanishedRunCandidates([node([migrate])], [entry(migrate, "adopted")], () => false)), []);
    assert.deepEqual(names(vanishedRunCandidates([node([migrate], true)], [entry(migrate)], () => false)), []);
  });
});
