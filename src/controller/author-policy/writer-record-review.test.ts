// The requester webhook records the writer on an instance, and leaves the controller's writes alone.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS } from "../../api/index.js";
import { AUTHOR_RECORD, REQUESTER_RECORD, reviewWriterRecord } from "./writer-record-review.js";

const reviewRequester = (body: unknown, controllerUser: string | undefined) =>
  reviewWriterRecord(body, controllerUser, REQUESTER_RECORD);

const review = (username: string, object: unknown) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "r-1",
    operation: "CREATE",
    userInfo: { username, groups: ["devs", "system:authenticated"] },
    object,
  },
});
const patchOf = (answer: ReturnType<typeof reviewRequester>): unknown =>
  answer?.response.patch === undefined
    ? undefined
    : JSON.parse(Buffer.from(answer.response.patch, "base64").toString("utf8"));

describe("requester webhook review", () => {
  it("adds the writer's record to an instance without annotations", () => {
    const answer = reviewRequester(review("alice", { metadata: { name: "app" } }), "kro");
    assert.ok(answer);
    assert.equal(answer.response.uid, "r-1");
    assert.equal(answer.response.allowed, true);
    assert.equal(answer.response.patchType, "JSONPatch");
    assert.deepEqual(patchOf(answer), [
      {
        op: "add",
        path: "/metadata/annotations",
        value: { [ANNOTATIONS.requestedBy]: "alice", [ANNOTATIONS.requestedGroups]: "devs,system:authenticated" },
      },
    ]);
  });

  it("replaces a record naming someone else, escaping the key as a JSON pointer", () => {
    const object = { metadata: { annotations: { [ANNOTATIONS.requestedBy]: "system:admin", other: "x" } } };
    assert.deepEqual(patchOf(reviewRequester(review("alice", object), "kro")), [
      { op: "replace", path: "/metadata/annotations/kro.run~1requested-by", value: "alice" },
      { op: "add", path: "/metadata/annotations/kro.run~1requested-groups", value: "devs,system:authenticated" },
    ]);
  });

  it("patches nothing when the record is already the writer's, or the writer is the controller", () => {
    const recorded = {
      metadata: {
        annotations: { [ANNOTATIONS.requestedBy]: "alice", [ANNOTATIONS.requestedGroups]: "devs,system:authenticated" },
      },
    };
    assert.equal(reviewRequester(review("alice", recorded), "kro")?.response.patch, undefined);
    assert.equal(reviewRequester(review("kro", { metadata: {} }), "kro")?.response.patch, undefined);
  });

  it("keeps the record on an update that changes neither the spec nor the record (finalizers, labels, bookkeeping)", () => {
    const recorded = {
      metadata: { annotations: { [ANNOTATIONS.requestedBy]: "gina", [ANNOTATIONS.requestedGroups]: "" }, labels: {} },
      spec: { target: "team-a" },
    };
    const update = (object: unknown) => ({
      ...review("system:admin", object),
      request: { ...review("system:admin", object).request, operation: "UPDATE", oldObject: recorded },
    });
    const relabelled = {
      ...recorded,
      metadata: { ...recorded.metadata, labels: { a: "b" }, finalizers: ["kro.run/f"] },
    };
    assert.equal(reviewRequester(update(relabelled), undefined)?.response.patch, undefined);
    const respecced = { ...recorded, spec: { target: "kube-system" } };
    assert.deepEqual(patchOf(reviewRequester(update(respecced), undefined)), [
      { op: "replace", path: "/metadata/annotations/kro.run~1requested-by", value: "system:admin" },
      { op: "replace", path: "/metadata/annotations/kro.run~1requested-groups", value: "devs,system:authenticated" },
    ]);
  });

  it("is not an answer to something that is not an AdmissionReview", () => {
    assert.equal(reviewRequester({ kind: "ConversionReview", request: { uid: "x" } }, "kro"), undefined);
    assert.equal(reviewRequester("nope", "kro"), undefined);
  });

  it("records an RGD's author under the author keys, and only those", () => {
    const rgd = { metadata: { name: "webapp", annotations: { [ANNOTATIONS.authoredBy]: "system:admin" } }, spec: {} };
    assert.deepEqual(patchOf(reviewWriterRecord(review("rita", rgd), "kro", AUTHOR_RECORD)), [
      { op: "replace", path: "/metadata/annotations/kro.run~1authored-by", value: "rita" },
      { op: "add", path: "/metadata/annotations/kro.run~1authored-groups", value: "devs,system:authenticated" },
    ]);
  });
});
