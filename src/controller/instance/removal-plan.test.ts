import assert from "node:assert/strict";
import { labelValue } from "../../api/index.js";
import { describe, it } from "node:test";
import { decideRemoval, type RemovalContext } from "./removal-plan.js";
import { validateInventory } from "./inventory-validation.js";
import { recoverUnrecorded } from "./ownership-checks.js";
import { releasePatch } from "./child-removal.js";
import { adoptionRecordPatch, releaseManager } from "./adoption-record.js";
import type { OwnedChild } from "./inventory.js";
import type { KubeJson } from "../../runtime/index.js";
import type { CompiledGraph } from "../../graph/index.js";

const KEY = "creation-key-1";
const owner = { uid: "inst-uid", group: "kro.run", kind: "WebApp", namespace: "ns", name: "web" };
const ctx = (over: Partial<RemovalContext> = {}): RemovalContext => ({
  owner,
  creationKey: KEY,
  policy: "never",
  validated: true,
  ...over,
});
const entry = (over: Partial<OwnedChild> = {}): OwnedChild => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  namespace: "ns",
  name: "a",
  uid: "uid-a",
  nodeId: "cm",
  ownership: "created",
  ...over,
});
const live = (meta: Record<string, unknown> = {}): KubeJson => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "a", namespace: "ns", uid: "uid-a", labels: { "kro.run/instance-id": "inst-uid" }, ...meta },
});

describe("decideRemoval: nothing is removed unless it is provably ours", () => {
  it("deletes our recorded child that carries our identity", () => {
    assert.deepEqual(decideRemoval(entry(), live(), "cache", ctx()), { kind: "delete" });
  });
  it("never sends a second DELETE to a terminating child: waits for its event", () => {
    assert.deepEqual(decideRemoval(entry(), live({ deletionTimestamp: "2026-01-01T00:00:00Z" }), "cache", ctx()), {
      kind: "wait",
    });
  });
  it("cache absence is not proof: read the live object; live absence is", () => {
    assert.deepEqual(decideRemoval(entry(), undefined, "cache", ctx()), { kind: "read" });
    assert.deepEqual(decideRemoval(entry(), undefined, "live", ctx()), { kind: "gone" });
  });
  it("another object under the recorded name (UID differs) is not ours: record dropped, object untouched", () => {
    assert.deepEqual(decideRemoval(entry(), live({ uid: "user-uid" }), "live", ctx()), { kind: "gone" });
  });
  it("a tampered entry naming an object without our identity is refused", () => {
    const admin = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "admin-config", namespace: "kube-system", uid: "uid-a" },
    };
    assert.equal(decideRemoval(entry(), admin, "live", ctx()).kind, "refuse");
  });
  it("an entry the graph could not produce needs the creation key too", () => {
    assert.equal(decideRemoval(entry(), live(), "live", ctx({ validated: false })).kind, "refuse");
    assert.deepEqual(
      decideRemoval(
        entry(),
        live({ annotations: { "internal.kro.run/creation-key": KEY } }),
        "live",
        ctx({ validated: false }),
      ),
      { kind: "delete" },
    );
  });
  it("adopted objects are released by default and deleted only with the delete opt-in", () => {
    const adopted = entry({ ownership: "adopted" });
    assert.deepEqual(decideRemoval(adopted, live({ labels: {} }), "live", ctx()), { kind: "release" });
    assert.deepEqual(decideRemoval(adopted, live({ labels: {} }), "live", ctx({ policy: "adopt-and-release" })), {
      kind: "release",
    });
    assert.deepEqual(decideRemoval(adopted, live({ labels: {} }), "live", ctx({ policy: "adopt-and-delete" })), {
      kind: "delete",
    });
  });
  it("helm.sh/resource-policy: keep is released, never deleted, whoever made it (as helm uninstall keeps it)", () => {
    const keep = { annotations: { "helm.sh/resource-policy": "keep" } };
    assert.deepEqual(decideRemoval(entry(), live(keep), "cache", ctx()), { kind: "release" });
    const adopted = entry({ ownership: "adopted" });
    assert.deepEqual(decideRemoval(adopted, live(keep), "live", ctx({ policy: "adopt-and-delete" })), {
      kind: "release",
    });
    // Still only ours: a kept object without our identity is not touched at all.
    assert.equal(decideRemoval(entry(), live({ ...keep, labels: {} }), "live", ctx()).kind, "refuse");
    assert.deepEqual(
      decideRemoval(entry(), live({ annotations: { "helm.sh/resource-policy": "delete" } }), "live", ctx()),
      { kind: "delete" },
    );
  });
});

/** A chart template path as an id: longer than a label value may be. */
const LONG_ID = "ingress-nginx/templates/admission-webhooks/validating-webhook-configuration-yaml";
const graph = {
  nodes: [
    {
      id: "cm",
      type: "resource",
      apiVersion: "v1",
      kind: "ConfigMap",
      namespaced: true,
      template: { metadata: { name: "x" } },
    },
    {
      id: "fixed",
      type: "resource",
      apiVersion: "v1",
      kind: "Secret",
      namespaced: true,
      template: { metadata: { name: "x", namespace: "shared" } },
    },
    {
      id: "dyn",
      type: "resource",
      apiVersion: "v1",
      kind: "Service",
      namespaced: true,
      template: { metadata: { name: "x", namespace: "${schema.spec.ns}" } },
    },
    {
      id: "crb",
      type: "resource",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      namespaced: false,
      template: {},
    },
    { id: "ext", type: "external", apiVersion: "v1", kind: "Secret", namespaced: true, template: {} },
    {
      id: LONG_ID,
      type: "resource",
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      namespaced: false,
      template: "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n",
      templateSource: { manifests: { template: "t" } },
    },
    {
      id: "chartRbac",
      type: "resource",
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      namespaced: true,
      template: "kind: Role\nmetadata:\n  namespace: kube-system\n",
      templateSource: { manifests: { template: "t" } },
    },
  ],
} as unknown as CompiledGraph;

describe("validateInventory: a tampered record is never acted on blindly", () => {
  const cases: [string, Partial<OwnedChild>, string | undefined][] = [
    ["a child of a node in the instance's namespace", {}, undefined],
    ["a node that does not exist", { nodeId: "ghost" }, 'node "ghost" is not in the graph'],
    ["another kind than its node makes", { kind: "Secret" }, "makes ConfigMap"],
    ["a namespace the node cannot write to", { namespace: "kube-system" }, 'writes only to namespace "ns"'],
    ["a constant namespace the author wrote", { nodeId: "fixed", kind: "Secret", namespace: "shared" }, undefined],
    [
      "another namespace than the author's constant",
      { nodeId: "fixed", kind: "Secret", namespace: "kube-system" },
      'only to namespace "shared"',
    ],
    [
      "a spec-driven namespace (checked live instead)",
      { nodeId: "dyn", kind: "Service", namespace: "anywhere" },
      undefined,
    ],
    [
      "a namespace on a cluster-scoped kind",
      { nodeId: "crb", kind: "ClusterRoleBinding", apiVersion: "rbac.authorization.k8s.io/v1", namespace: "ns" },
      "cluster-scoped",
    ],
    ["an external reference", { nodeId: "ext", kind: "Secret" }, "never owned"],
    [
      "a node id longer than a label, recorded from the child's shortened node-id label",
      {
        nodeId: labelValue(LONG_ID),
        kind: "ValidatingWebhookConfiguration",
        apiVersion: "admissionregistration.k8s.io/v1",
        namespace: undefined,
      } as unknown as Partial<OwnedChild>,
      undefined,
    ],
    [
      "a chart's object in a namespace its template names (known only when rendered)",
      { nodeId: "chartRbac", kind: "Role", apiVersion: "rbac.authorization.k8s.io/v1", namespace: "kube-system" },
      undefined,
    ],
  ];
  for (const [label, over, reason] of cases) {
    it(label, () => {
      const { rejected } = validateInventory(graph, "ns", [entry(over)]);
      if (reason === undefined) assert.deepEqual(rejected, []);
      else assert.match(rejected[0]?.reason ?? "", new RegExp(reason.replace(/[()]/g, "\\$&")));
    });
  }
});

describe("recoverUnrecorded: the second source after a crash", () => {
  const object = (uid: string, key: string | undefined): KubeJson => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: uid,
      namespace: "ns",
      uid,
      labels: { "kro.run/node-id": "cm" },
      annotations: key === undefined ? {} : { "internal.kro.run/creation-key": key },
    },
  });
  it("records cached children with our key that the record lacks, and nothing else", () => {
    const inventory = { key: KEY, entries: [entry({ uid: "known" })] };
    const delta = recoverUnrecorded(
      [object("known", KEY), object("lost", KEY), object("lookalike", undefined), object("other", "other-key")],
      inventory,
    );
    assert.deepEqual(
      delta.recorded.map((e) => e.uid),
      ["lost"],
    );
    assert.equal(delta.recorded[0]?.nodeId, "cm");
  });
  it("a child found in another cluster is recorded with that cluster (else it would be looked for in ours)", () => {
    const remote = object("remote", KEY);
    (remote.metadata as { annotations: Record<string, string> }).annotations["kro.run/cluster"] = "eu-west";
    const delta = recoverUnrecorded([remote], { key: KEY, entries: [] });
    assert.deepEqual(
      delta.recorded.map((e) => [e.uid, e.cluster, e.namespace]),
      [["remote", "eu-west", "ns"]],
    );
  });
  it("without a key on record nothing can be proven", () => {
    assert.deepEqual(recoverUnrecorded([object("lost", KEY)], { key: undefined, entries: [] }).recorded, []);
  });
});

describe("releasePatch", () => {
  it("removes our labels, annotations and field manager, keeps everything else", () => {
    const patch = releasePatch({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        resourceVersion: "7",
        labels: { app: "x", "kro.run/instance-id": "u", "app.kubernetes.io/managed-by": "kro" },
        annotations: { keep: "1", "internal.kro.run/apply-order": "0" },
        managedFields: [{ manager: "helm" }, { manager: "kro.run/applyset" }],
      },
    });
    assert.deepEqual(patch, {
      metadata: {
        resourceVersion: "7",
        labels: { "kro.run/instance-id": null, "app.kubernetes.io/managed-by": null },
        annotations: { "internal.kro.run/apply-order": null },
        managedFields: [{ manager: "helm" }],
      },
    });
  });
  it("does nothing to an object with nothing of ours", () => {
    assert.equal(
      releasePatch({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { labels: { app: "x" }, managedFields: [{ manager: "helm" }] },
      }),
      undefined,
    );
  });
});

describe("an adopted Helm object is handed back with the managed-by label Helm had", () => {
  // As helm 3.18 leaves an object: its labels written by an Update of field manager "helm".
  const helmObject: KubeJson = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "a",
      namespace: "ns",
      uid: "uid-a",
      resourceVersion: "3",
      labels: { "app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": "rel" },
      annotations: { "meta.helm.sh/release-name": "rel" },
      managedFields: [
        {
          manager: "helm",
          operation: "Update",
          fieldsV1: {
            "f:metadata": { "f:labels": { "f:app.kubernetes.io/managed-by": {}, "f:app.kubernetes.io/instance": {} } },
          },
        },
      ],
    },
  };
  const desired: KubeJson = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "a",
      namespace: "ns",
      labels: { "app.kubernetes.io/managed-by": "kro", "app.kubernetes.io/instance": "rel", "kro.run/owned": "true" },
    },
  };
  const record = adoptionRecordPatch(helmObject, desired);

  it("adopting records the label value the apply overwrites and who wrote it, preconditioned on the UID", () => {
    assert.deepEqual(record, {
      metadata: {
        uid: "uid-a",
        annotations: {
          "internal.kro.run/adopted-labels": JSON.stringify({
            labels: { "app.kubernetes.io/managed-by": "Helm" },
            manager: "helm",
          }),
        },
      },
    });
    assert.equal(adoptionRecordPatch({ ...helmObject, metadata: { uid: "u", labels: {} } }, desired), undefined);
  });

  it("releasing writes it back as that manager and drops the record and every kro-ts manager", () => {
    const annotations = (record?.metadata as { annotations: Record<string, string> }).annotations;
    const adopted: KubeJson = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        uid: "uid-a",
        resourceVersion: "9",
        labels: { "app.kubernetes.io/managed-by": "kro", "app.kubernetes.io/instance": "rel", "kro.run/owned": "true" },
        annotations: { "meta.helm.sh/release-name": "rel", "internal.kro.run/apply-order": "0", ...annotations },
        managedFields: [{ manager: "helm" }, { manager: "kro.run/applyset" }, { manager: "kro.run/controller" }],
      },
    };
    assert.deepEqual(releasePatch(adopted), {
      metadata: {
        resourceVersion: "9",
        labels: { "app.kubernetes.io/managed-by": "Helm", "kro.run/owned": null },
        annotations: { "internal.kro.run/apply-order": null, "internal.kro.run/adopted-labels": null },
        managedFields: [{ manager: "helm" }],
      },
    });
    assert.equal(releaseManager(adopted), "helm");
    assert.equal(releaseManager(helmObject), "kro.run/controller");
  });
});
