import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatReport } from "./diff-format.js";
import {
  DIFF_EXIT,
  exitForReport,
  summarize,
  type DiffReport,
  type InstanceDiff,
  type ObjectDiff,
} from "./diff-model.js";

const obj = (
  nodeId: string,
  kind: string,
  name: string,
  action: ObjectDiff["action"],
  extra: Partial<ObjectDiff> = {},
): ObjectDiff => ({ nodeId, apiVersion: "v1", kind, namespace: "ns", name, action, ...extra });

function instance(name: string, objects: ObjectDiff[], extra: Partial<InstanceDiff> = {}): InstanceDiff {
  return { apiVersion: "kro.run/v1alpha1", kind: "WebApp", namespace: "ns", name, objects, ...extra };
}

const replicas = { path: "spec.replicas", before: 1, after: 2 };
const image = { path: "spec.template.spec.containers[name=web].image", before: "a", after: "b" };

/** 37 instances: every Deployment changes replicas, 3 also the image, 2 lose their Service, one refused. */
function fleet(): InstanceDiff[] {
  return Array.from({ length: 37 }, (_, i) =>
    instance(`i${i}`, [
      obj("deploy", "Deployment", `i${i}`, "update", { fields: i < 3 ? [replicas, image] : [replicas] }),
      obj("config", "ConfigMap", `i${i}`, "unchanged"),
      ...(i < 2 ? [obj("svc", "Service", `i${i}`, "delete", { reason: "excluded (includeWhen is false)" })] : []),
      ...(i === 5 ? [obj("old", "Service", "x", "delete-refused", { reason: "not ours" })] : []),
    ]),
  );
}

const report = (instances: InstanceDiff[], extra: Partial<DiffReport> = {}): DiffReport => ({
  rgd: "webapp",
  instanceKind: "WebApp (kro.run/v1alpha1)",
  served: true,
  instances,
  summary: summarize(instances),
  notes: [],
  ...extra,
});

describe("kro diff summary", () => {
  it("counts by action, kind and node, and each changed field over all instances", () => {
    const summary = summarize(fleet());
    assert.equal(summary.instances, 37);
    assert.equal(summary.changed, 37);
    assert.equal(summary.failing, 0);
    assert.deepEqual(summary.lines, [
      {
        action: "update",
        kind: "Deployment",
        nodeId: "deploy",
        count: 37,
        fields: [
          { path: "spec.replicas", count: 37 },
          { path: image.path, count: 3 },
        ],
      },
      { action: "delete", kind: "Service", nodeId: "svc", count: 2, reasons: ["excluded (includeWhen is false)"] },
      { action: "delete-refused", kind: "Service", nodeId: "old", count: 1, reasons: ["not ours"] },
    ]);
    const text = formatReport(report(fleet()));
    assert.match(
      text,
      /^Summary: 37 instances, 37 would change:\n {2}37 Deployment \(deploy\) change spec\.replicas\n {2}3 Deployment \(deploy\) change spec\.template\.spec\.containers\[name=web\]\.image\n {2}2 Service \(svc\) deleted: excluded \(includeWhen is false\)\n {2}1 Service \(old\) not deleted: refused: not ours\n$/m,
    );
    assert.match(text, /^WebApp ns\/i0\n {2}~ deploy: Deployment ns\/i0 changed\n {6}spec\.replicas: 1 → 2\n/m);
    assert.doesNotMatch(text, /config: ConfigMap/);
  });

  it("unchanged and pending objects change nothing; an instance with only them has no changes", () => {
    const quiet = [
      instance("a", [
        obj("config", "ConfigMap", "a", "unchanged"),
        { nodeId: "svc", apiVersion: "v1", kind: "Service", action: "pending", reason: "waiting on deploy" },
      ]),
    ];
    const r = report(quiet);
    assert.equal(r.summary.changed, 0);
    assert.equal(exitForReport(r), DIFF_EXIT.same);
    assert.match(
      formatReport(r),
      /^WebApp ns\/a: no changes \(1 not known yet\)\n {2}\? svc: Service not known yet: waiting on deploy$/m,
    );
  });

  it("exit status: 0 same, 1 changes, 3 when a write or the CRD would be refused", () => {
    assert.equal(exitForReport(report(fleet())), DIFF_EXIT.changes);
    assert.equal(
      exitForReport(
        report([], {
          crd: {
            name: "webapps.kro.run",
            action: "update",
            breaking: [],
            nonBreaking: ["v1alpha1: property spec.x added"],
          },
        }),
      ),
      DIFF_EXIT.changes,
      "a CRD change alone is a change",
    );
    assert.equal(
      exitForReport(
        report([], { crd: { name: "webapps.kro.run", action: "unchanged", breaking: [], nonBreaking: [] } }),
      ),
      DIFF_EXIT.same,
    );
    const refusedCrd = report(fleet(), {
      served: false,
      crd: {
        name: "webapps.kro.run",
        action: "refused",
        reason: "breaking changes: spec.x removed",
        breaking: ["v1alpha1: spec.x removed"],
        nonBreaking: [],
      },
    });
    assert.equal(exitForReport(refusedCrd), DIFF_EXIT.refused);
    assert.match(
      formatReport(refusedCrd),
      /^CustomResourceDefinition webapps\.kro\.run: REFUSED by the breaking-change gate: breaking changes: spec\.x removed\n {2}the controller keeps serving the current graph/m,
    );
    const conflict = [
      instance("a", [obj("svc", "Service", "a", "conflict", { reason: "belongs to another instance" })]),
    ];
    assert.equal(exitForReport(report(conflict)), DIFF_EXIT.refused);
    assert.equal(exitForReport(report([instance("b", [], { error: "evaluation failed" })])), DIFF_EXIT.refused);
  });
});

describe("kro diff under a rollout policy", () => {
  it("names each instance's wave, or its pin", () => {
    const text = formatReport(
      report([
        instance("canary", [obj("deploy", "Deployment", "canary", "update", { fields: [image] })], {
          rollout: { kind: "wave", index: 0, name: "canary", of: 3 },
        }),
        instance("held", [obj("deploy", "Deployment", "held", "update", { fields: [image] })], {
          rollout: { kind: "pinned", pin: "4" },
        }),
      ]),
    );
    assert.match(text, /^WebApp ns\/canary \[wave 1\/3 "canary"\]$/m);
    assert.match(text, /^WebApp ns\/held \[pinned to revision 4\]$/m);
  });
});
