// The migration plan's render against the cluster (release-render.ts): lookups answered from the
// live objects through a fake reader, as the controller answers them, so a chart that keeps its
// password through lookup plans no pod-template change; the controller's tenant rules and pass bound.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { identityKey, identityOf, importHelmChart, manifestObjects, planMigration } from "../../helm/index.js";
import type { KubeClient, KubeObject } from "../../kube/index.js";
import type { CollectionQuery, InstanceEvaluation, KubeJson, ObjectIdentity } from "../../runtime/index.js";
import { readChartFiles } from "./chart-files.js";
import { compileImported, renderDesired } from "./import-render.js";
import { renderDesiredOnCluster, settleLookups, type LookupReader } from "./release-render.js";

const CHART = fileURLToPath(new URL("../../../../test/fixtures/helm/kept-password", import.meta.url));
const KUBE = "v1.33.1";
const KEPT = Buffer.from("kept-password").toString("base64");

/** The API server as withHelmCluster reads it: scopes, /version, discovery. */
const fakeClient = {
  resourceFor: (apiVersion: string, kind: string) => Promise.resolve({ apiVersion, kind, namespaced: kind !== "Node" }),
  getPath: () => Promise.resolve({ gitVersion: KUBE }),
  discovery: {
    refreshes: 1,
    all: () =>
      Promise.resolve([
        { group: "", version: "v1", kind: "Secret" },
        { group: "apps", version: "v1", kind: "Deployment" },
      ]),
  },
} as unknown as KubeClient;

function fakeReader(objects: readonly KubeJson[]): LookupReader & { asked: string[] } {
  const asked: string[] = [];
  const meta = (o: KubeJson) => o.metadata as { name: string; namespace?: string };
  return {
    asked,
    get: (id: ObjectIdentity) => {
      asked.push(`get ${id.kind} ${id.namespace ?? ""}/${id.name}`);
      return Promise.resolve(
        objects.find((o) => o.kind === id.kind && meta(o).name === id.name && meta(o).namespace === id.namespace),
      );
    },
    list: (q: CollectionQuery) => {
      asked.push(`list ${q.kind} ${q.namespace ?? "*"}`);
      return Promise.resolve(objects.filter((o) => o.kind === q.kind));
    },
  };
}

const liveSecret = (password: string): KubeJson => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "shop-auth", namespace: "prod", uid: "u-secret", resourceVersion: "5" },
  type: "Opaque",
  data: { password },
});

async function imported() {
  const result = importHelmChart(await readChartFiles(CHART), {
    values: [{}],
    releaseName: "shop",
    namespace: "prod",
    kubeVersion: KUBE,
  });
  const metadata = result.instance.metadata ?? {};
  const instance = { ...result.instance, metadata: { ...metadata, name: "shop", namespace: "prod" } } as KubeObject;
  return { result, instance, graph: await compileImported(result, KUBE) };
}

const byKind = (objects: readonly KubeJson[], kind: string) => objects.find((o) => o.kind === kind);
const checksum = (deployment: KubeJson | undefined) =>
  (deployment as { spec: { template: { metadata: { annotations: Record<string, string> } } } } | undefined)?.spec
    .template.metadata.annotations["checksum/secret"];

describe("the migration plan's render on the cluster", () => {
  it("keeps the live Secret's password through lookup, so the Deployment's checksum and pods stay; offline it would roll them", async () => {
    const { result, instance, graph } = await imported();
    const reader = fakeReader([liveSecret(KEPT)]);
    const desired = await renderDesiredOnCluster(fakeClient, result, graph, instance, reader);
    assert.deepEqual((byKind(desired, "Secret")?.data as Record<string, string>).password, KEPT);
    assert.deepEqual(reader.asked, ["get Secret prod/shop-auth"]);
    // The checksum is of the Secret template's text with the kept password, as Helm rendered it at install.
    const secretText = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: shop-auth\n  labels:\n    app.kubernetes.io/instance: shop\ntype: Opaque\ndata:\n  password: ${KEPT}\n`;
    assert.equal(checksum(byKind(desired, "Deployment")), createHash("sha256").update(secretText).digest("hex"));

    // The release as Helm installed it with that password: the plan adopts the Deployment unchanged.
    const release = manifestObjects(
      desired.map((o) => JSON.stringify({ ...o, metadata: { ...(o.metadata as object), labels: {} } })).join("\n---\n"),
      "prod",
    );
    const live = new Map(
      release.map((o, i) => [
        identityKey(identityOf(o)),
        { ...o, metadata: { ...(o.metadata as object), uid: `u${i}` } },
      ]),
    );
    const onCluster = planMigration(desired, release, live);
    assert.deepEqual(onCluster.adopt.map((a) => [a.identity.kind, a.changes.length, a.restarts.length]).sort(), [
      ["Deployment", 0, 0],
      ["Secret", 0, 0],
    ]);
    // Offline, lookup is {} (helm template): a new password, a new checksum, a pod restart.
    const offline = planMigration(await renderDesired(result, instance, KUBE), release, live);
    assert.deepEqual(
      offline.adopt.filter((a) => a.restarts.length > 0).map((a) => a.restarts.map((c) => c.path)),
      [["spec.template.metadata.annotations.checksum/secret"]],
    );
  });

  it("generates a password when the Secret is not live, and a different kept password gives a different checksum", async () => {
    const { result, instance, graph } = await imported();
    const absent = await renderDesiredOnCluster(fakeClient, result, graph, instance, fakeReader([]));
    const generated = (byKind(absent, "Secret")?.data as Record<string, string>).password;
    assert.notEqual(generated, KEPT);
    assert.match(Buffer.from(generated ?? "", "base64").toString(), /^[A-Za-z0-9]{24}$/);
    const other = await renderDesiredOnCluster(
      fakeClient,
      result,
      graph,
      instance,
      fakeReader([liveSecret(Buffer.from("another").toString("base64"))]),
    );
    const kept = await renderDesiredOnCluster(fakeClient, result, graph, instance, fakeReader([liveSecret(KEPT)]));
    assert.notEqual(checksum(byKind(other, "Deployment")), checksum(byKind(kept, "Deployment")));
  });

  it("confines lookups as the controller does: another namespace is refused and never read", async () => {
    const text = (s: string) => new Uint8Array(Buffer.from(s));
    const files = new Map([
      ["Chart.yaml", text("apiVersion: v2\nname: peek\nversion: 0.1.0\n")],
      ["values.yaml", text("{}\n")],
      [
        "templates/cm.yaml",
        text(
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: peek\ndata:\n  stolen: {{ (lookup "v1" "Secret" "other-team" "db").data | toJson | quote }}\n',
        ),
      ],
    ]);
    const result = importHelmChart(files, { values: [{}], releaseName: "peek", namespace: "prod", kubeVersion: KUBE });
    const instance = {
      ...result.instance,
      metadata: { ...(result.instance.metadata ?? {}), name: "peek", namespace: "prod" },
    } as KubeObject;
    const reader = fakeReader([liveSecret(KEPT)]);
    await assert.rejects(
      renderDesiredOnCluster(fakeClient, result, await compileImported(result, KUBE), instance, reader),
      /lookup "v1" "Secret" "other-team" "db" refused: it reads Secret in namespace "other-team", outside the instance's namespace "prod"/,
    );
    assert.deepEqual(reader.asked, []);
  });
});

describe("settleLookups", () => {
  const evaluation = (requests: readonly (ObjectIdentity | CollectionQuery)[]): InstanceEvaluation => ({
    nodes: [],
    apply: [],
    pending: false,
    watches: [],
    externals: requests.map((request) => ({ nodeId: "n", request })),
  });
  const cm = (name: string): ObjectIdentity => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "prod", name });

  it("reads each new scope once and renders again until a pass names nothing new", async () => {
    const reader = fakeReader([
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "prod" }, data: { next: "b" } },
    ]);
    let renders = 0;
    const settled = await settleLookups((from) => {
      renders++;
      // A lookup named by another lookup's answer: b is asked for only once a is known.
      const a = from.get(cm("a"));
      const next = (a?.data as { next?: string } | undefined)?.next;
      return evaluation(next === undefined ? [cm("a")] : [cm("a"), cm(next)]);
    }, reader);
    assert.equal(renders, 3);
    assert.equal(settled.externals.length, 2);
    assert.deepEqual(reader.asked, ["get ConfigMap prod/a", "get ConfigMap prod/b"]);
  });

  it("a chart whose lookups never settle is an error after the controller's bound", async () => {
    let renders = 0;
    await assert.rejects(
      settleLookups(() => evaluation([cm(`n${renders++}`)]), fakeReader([])),
      /the chart's lookups did not settle: after 5 renders/,
    );
    assert.equal(renders, 5);
  });

  it("a scope that cannot be read is an error naming it", async () => {
    const reader: LookupReader = {
      get: () => Promise.reject(new Error("secrets is forbidden")),
      list: () => Promise.resolve([]),
    };
    await assert.rejects(
      settleLookups(() => evaluation([cm("a")]), reader),
      /the chart looks up ConfigMap \(v1\) prod\/a, which could not be read: secrets is forbidden/,
    );
  });
});
