import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApplyMemo, asStored } from "./apply-memo.js";

const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "ns" }, stringData: { token: "héllo" }, data: { other: "b3RoZXI=" } };
const liveSecret = {
  apiVersion: "v1", kind: "Secret", type: "Opaque",
  metadata: { name: "s", namespace: "ns", uid: "u1", resourceVersion: "7" },
  data: { token: Buffer.from("héllo").toString("base64"), other: "b3RoZXI=" },
};

describe("ApplyMemo", () => {
  it("sees a Secret written through stringData as up to date once the server stored it base64-encoded under data", () => {
    // Secrets have no metadata.generation, so without this only the memo path exists and it needs one.
    assert.equal(new ApplyMemo().upToDate(secret, liveSecret), true);
  });

  it("still sees a changed Secret value as stale", () => {
    assert.equal(new ApplyMemo().upToDate({ ...secret, stringData: { token: "changed" } }, liveSecret), false);
    assert.equal(new ApplyMemo().upToDate({ ...secret, data: { other: "Y2hhbmdlZA==" } }, liveSecret), false);
  });

  it("lets stringData win over data for the same key and leaves other kinds alone", () => {
    assert.deepEqual(asStored({ apiVersion: "v1", kind: "Secret", data: { k: "b2xk" }, stringData: { k: "new" } }), { apiVersion: "v1", kind: "Secret", data: { k: "bmV3" } });
    const configMap = { apiVersion: "v1", kind: "ConfigMap", stringData: { k: "v" } };
    assert.equal(asStored(configMap), configMap);
  });
});
