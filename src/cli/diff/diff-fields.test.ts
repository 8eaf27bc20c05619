import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatSteps, jsonChanges, ownedFieldChanges, ownedLeaves, valueAt } from "./diff-fields.js";

const ME = "kro.run/applyset";

/** An object with `fieldsV1` owned by `manager` through apply (plus another manager's entry). */
function withFields(object: Record<string, unknown>, fieldsV1: unknown, other: unknown = {}): Record<string, unknown> {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  return {
    ...object,
    metadata: {
      ...metadata,
      resourceVersion: String(Math.random()),
      managedFields: [
        { manager: ME, operation: "Apply", fieldsType: "FieldsV1", fieldsV1 },
        { manager: "kubectl", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: other },
        {
          manager: ME,
          operation: "Apply",
          fieldsType: "FieldsV1",
          subresource: "status",
          fieldsV1: { "f:status": { "f:x": {} } },
        },
      ],
    },
  };
}

const deployFields = {
  "f:metadata": { "f:labels": { "f:app": {}, "f:app.kubernetes.io/name": {} } },
  "f:spec": {
    "f:replicas": {},
    "f:template": { "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:name": {}, "f:image": {} } } } },
  },
};

function deploy(replicas: number, image: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", labels: { app: "a", "app.kubernetes.io/name": "x" }, generation: replicas },
    spec: {
      replicas,
      progressDeadlineSeconds: 600,
      template: {
        spec: {
          containers: [
            { name: "side", image: "busybox" },
            { name: "web", image, terminationMessagePath: "/dev/termination-log" },
          ],
        },
      },
      ...extra,
    },
    status: { replicas },
  };
}

describe("owned field changes (kro diff)", () => {
  it("reads FieldsV1: fields, list items by key, set items by value, presence-only entries; other managers and subresources ignored", () => {
    const object = withFields(
      deploy(1, "nginx"),
      {
        ...deployFields,
        "f:spec": { ...deployFields["f:spec"], "f:finalizers": { 'v:"a"': {} }, "f:args": { "i:0": {} } },
      },
      { "f:spec": { "f:paused": {} } },
    );
    const paths = ownedLeaves(object, ME)
      .map((l) => `${formatSteps(l.steps)}${l.presenceOnly ? " (.)" : ""}`)
      .sort();
    assert.deepEqual(paths, [
      "metadata.labels.app",
      'metadata.labels["app.kubernetes.io/name"]',
      "spec.args[0]",
      'spec.finalizers[="a"]',
      "spec.replicas",
      "spec.template.spec.containers[name=web] (.)",
      "spec.template.spec.containers[name=web].image",
      "spec.template.spec.containers[name=web].name",
    ]);
  });

  it("finds list items by their key, whatever their position", () => {
    assert.deepEqual(
      valueAt(deploy(1, "nginx"), [
        { field: "spec" },
        { field: "template" },
        { field: "spec" },
        { field: "containers" },
        { key: { name: "web" } },
        { field: "image" },
      ]),
      { found: true, value: "nginx" },
    );
    assert.deepEqual(valueAt(deploy(1, "nginx"), [{ field: "spec" }, { field: "containers" }]), { found: false });
  });

  it("reports owned values that change, and nothing else (defaults, status, generation, other managers)", () => {
    const theirs = { "f:spec": { "f:progressDeadlineSeconds": {} } };
    const live = withFields(deploy(1, "nginx:1.27"), deployFields, theirs);
    const after = withFields(deploy(2, "nginx:1.28", { progressDeadlineSeconds: 900 }), deployFields, theirs);
    assert.deepEqual(ownedFieldChanges(live, after, ME), [
      { path: "spec.replicas", before: 1, after: 2 },
      { path: "spec.template.spec.containers[name=web].image", before: "nginx:1.27", after: "nginx:1.28" },
    ]);
    assert.deepEqual(
      ownedFieldChanges(live, withFields(deploy(1, "nginx:1.27"), deployFields), ME),
      [],
      "an identical apply is no change even with a new resourceVersion",
    );
  });

  it("a field we stop setting is removed; a field we start setting is added", () => {
    const live = withFields({ kind: "ConfigMap", data: { a: "1", b: "2" } }, { "f:data": { "f:a": {}, "f:b": {} } });
    const after = withFields({ kind: "ConfigMap", data: { a: "1", c: "3" } }, { "f:data": { "f:a": {}, "f:c": {} } });
    assert.deepEqual(ownedFieldChanges(live, after, ME), [
      { path: "data.b", before: "2" },
      { path: "data.c", after: "3" },
    ]);
  });

  it("an added or removed list item is one change, not one per field inside it", () => {
    const fields = (names: string[]) => ({
      "f:spec": {
        "f:ports": Object.fromEntries(
          names.map((n) => [`k:{"port":${n},"protocol":"TCP"}`, { ".": {}, "f:port": {}, "f:name": {} }]),
        ),
      },
    });
    const live = withFields({ spec: { ports: [{ port: 80, protocol: "TCP", name: "http" }] } }, fields(["80"]));
    const after = withFields(
      {
        spec: {
          ports: [
            { port: 80, protocol: "TCP", name: "http" },
            { port: 443, protocol: "TCP", name: "https" },
          ],
        },
      },
      fields(["80", "443"]),
    );
    assert.deepEqual(ownedFieldChanges(live, after, ME), [
      { path: "spec.ports[port=443,protocol=TCP]", after: { port: 443, protocol: "TCP", name: "https" } },
    ]);
    assert.deepEqual(ownedFieldChanges(after, live, ME), [
      { path: "spec.ports[port=443,protocol=TCP]", before: { port: 443, protocol: "TCP", name: "https" } },
    ]);
  });

  it("a malformed managedFields entry names no field instead of failing", () => {
    const live = withFields({ data: { a: "1" } }, { "f:data": { "f:a": {} }, "k:{not json": {}, "x:what": {} });
    assert.deepEqual(ownedFieldChanges(live, live, ME), []);
  });

  it("jsonChanges lists every differing leaf of two documents", () => {
    assert.deepEqual(jsonChanges({ spec: { a: 1, b: [1], c: { d: 1 } } }, { spec: { a: 2, b: [1, 2], e: true } }), [
      { path: "spec.a", before: 1, after: 2 },
      { path: "spec.b", before: [1], after: [1, 2] },
      { path: "spec.c", before: { d: 1 } },
      { path: "spec.e", after: true },
    ]);
  });
});
