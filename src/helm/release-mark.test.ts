// Marking a release record as migrated (release-mark.ts), on a record helm 3.18.6 wrote: the
// status Helm queries (label and payload), the description, every other field kept, both drivers.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, it } from "node:test";
import { markedRecord, MIGRATED_STATUS } from "./release-mark.js";
import { decodeReleaseRecord, migratedTo, recordPayload, newestRecord } from "./release-record.js";

type Stored = {
  kind: string;
  metadata: { name: string; uid?: string; resourceVersion?: string; labels: Record<string, string> };
  data: { release: string };
};
const captured = JSON.parse(
  readFileSync(new URL("../../../test/data/helm/release-record-secrets.json", import.meta.url), "utf8"),
) as { items: Stored[] };
const TARGET = "RichApp rich/rich (x.example.com/v1)";
const rawJson = (record: Stored) =>
  JSON.parse(gunzipSync(Buffer.from(recordPayload(record), "base64")).toString("utf8")) as Record<string, unknown>;

describe("markedRecord", () => {
  const secret = captured.items.find((i) => i.metadata.labels.version === "2");
  if (secret === undefined) throw new Error("fixture");
  const stored: Stored = { ...secret, metadata: { ...secret.metadata, uid: "u-2", resourceVersion: "41" } };

  it("marks the revision uninstalled, payload and label, with a description naming the instance; keeps everything else", () => {
    const marked = markedRecord(stored, TARGET);
    assert.equal(marked.metadata.labels.status, MIGRATED_STATUS);
    assert.equal(marked.metadata.labels.version, "2");
    assert.deepEqual(
      [marked.metadata.uid, marked.metadata.resourceVersion],
      ["u-2", "41"],
      "the write's preconditions",
    );
    assert.equal(migratedTo({ ...marked.metadata }), TARGET);
    const before = rawJson(stored);
    const after = rawJson(marked);
    const info = after.info as Record<string, unknown>;
    assert.equal(info.status, "uninstalled");
    assert.match(String(info.description), /^Migrated to kro-ts: RichApp rich\/rich \(x\.example\.com\/v1\) manages/);
    const { info: infoBefore, ...restBefore } = before;
    const { info: _infoAfter, ...restAfter } = after;
    assert.deepEqual(restAfter, restBefore, "chart, config, manifest, hooks as helm wrote them");
    const { status: _s, description: _d, ...keptInfo } = info;
    const { status: _s0, description: _d0, ...infoKeptBefore } = infoBefore as Record<string, unknown>;
    assert.deepEqual(keptInfo, infoKeptBefore, "deployed times and notes kept");
    // The strict decoder still reads it, and a migration run again accepts it as the newest.
    assert.equal(decodeReleaseRecord(recordPayload(marked)).status, "uninstalled");
    assert.equal(newestRecord([{ ...marked, ...marked.metadata }], "rich", "rich").name, secret.metadata.name);
  });

  it("writes the ConfigMap driver's payload without the Secret's extra base64", () => {
    const configMap = { ...stored, kind: "ConfigMap", data: { release: recordPayload(stored) } };
    const marked = markedRecord(configMap, TARGET);
    assert.equal(decodeReleaseRecord(marked.data.release).status, "uninstalled");
  });

  it("refuses what is not a release record", () => {
    assert.throws(() => markedRecord({ ...stored, kind: "Pod" }, TARGET), /a Secret or a ConfigMap, not Pod/);
    assert.throws(() => markedRecord({ ...stored, data: {} }, TARGET), /has no data.release/);
  });
});
