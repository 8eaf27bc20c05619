// Marking Helm's release record after a migration (helm-release-record.ts) on the in-memory API
// server, with records helm 3.18.6 wrote: the write is refused when the record changed since it
// was read, the mark reads back as the migration's, and a run again writes nothing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it, type TestContext } from "node:test";
import { decodeReleaseRecord, recordPayload } from "../../helm/index.js";
import type { KubeObject } from "../../kube/index.js";
import { Actor, clientFor, FakeCluster } from "../../../test/unit-support/fake-api/index.js";
import { readLiveRelease } from "./helm-release.js";
import { markReleaseRecord, migrationTarget } from "./helm-release-record.js";

const captured = JSON.parse(
  readFileSync(new URL("../../../../test/data/helm/release-record-secrets.json", import.meta.url), "utf8"),
) as { items: KubeObject[] };

const instance: KubeObject = {
  apiVersion: "x.example.com/v1alpha1",
  kind: "RichApp",
  metadata: { name: "rich", namespace: "rich" },
};
const newestRef = { apiVersion: "v1", kind: "Secret", namespace: "rich", name: "sh.helm.release.v1.rich.v2" };

function fixture(t: TestContext) {
  const cluster = new FakeCluster();
  const client = clientFor(cluster);
  t.after(() => {
    client.close();
  });
  const actor = new Actor(cluster);
  for (const item of captured.items) actor.create(item);
  return { client, actor };
}

describe("markReleaseRecord", () => {
  it("marks the newest revision uninstalled, naming the instance; a run again sees its own mark and writes nothing", async (t) => {
    const { client, actor } = fixture(t);
    const lines: string[] = [];
    await markReleaseRecord(client, await readLiveRelease(client, "rich", "rich"), instance, (l) => lines.push(l));
    assert.match(
      lines.join("\n"),
      /marked Helm's release rich\/rich revision 2 uninstalled: "Migrated to kro-ts: RichApp rich\/rich \(x\.example\.com\/v1alpha1\)/,
    );
    const marked = actor.read(newestRef);
    assert.ok(marked);
    const { labels, annotations, resourceVersion: version } = marked.metadata ?? {};
    assert.equal(labels?.status, "uninstalled");
    assert.equal(annotations?.["helm.kro.run/migrated-to"], migrationTarget(instance));
    assert.equal(decodeReleaseRecord(recordPayload(marked)).status, "uninstalled");
    assert.equal(
      actor.read({ ...newestRef, name: "sh.helm.release.v1.rich.v1" })?.metadata?.labels?.status,
      "superseded",
      "older revisions are left as they are",
    );

    const again = await readLiveRelease(client, "rich", "rich");
    assert.equal(again.migratedTo, migrationTarget(instance));
    await markReleaseRecord(client, again, instance, (l) => lines.push(l));
    assert.match(lines.at(-1) ?? "", /was marked uninstalled \(migrated to RichApp rich\/rich .*\) by an earlier run/);
    assert.equal(actor.read(newestRef)?.metadata?.resourceVersion, version, "nothing written");
  });

  it("does not overwrite a record that changed since it was read (a helm command ran meanwhile)", async (t) => {
    const { client, actor } = fixture(t);
    const live = await readLiveRelease(client, "rich", "rich");
    actor.edit(newestRef, (o) => {
      o.metadata = { ...o.metadata, labels: { ...(o.metadata?.labels ?? {}), status: "pending-upgrade" } };
    });
    await assert.rejects(
      markReleaseRecord(client, live, instance, () => undefined),
      /Secret rich\/sh\.helm\.release\.v1\.rich\.v2 changed since it was read .*so it was not marked/,
    );
    assert.equal(actor.read(newestRef)?.metadata?.labels?.status, "pending-upgrade");
  });
});
