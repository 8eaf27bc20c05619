/**
 * Deleting the instance of a migrated Helm release against `helm uninstall` of a twin release of
 * the same chart (test/fixtures/helm/uninstall-twins: objects in the release namespace, in
 * kube-system and cluster-scoped — a ValidatingWebhookConfiguration that fails closed, pointing at
 * the chart's Service —, a child id over 63 characters, a ConfigMap and a CRD marked
 * `helm.sh/resource-policy: keep`). Three releases are installed by the real helm: one is
 * uninstalled by helm, two are migrated with `kro import helm --release … --apply` and their
 * instances deleted, one as adopted (`kro.run/adopt: "true"`, every object handed back, same UIDs,
 * Helm's metadata as before, and helm can take the release back and uninstall it), one after the
 * instance was annotated `kro.run/adopt: "delete"` (what remains is exactly what helm uninstall
 * left of its twin). Nothing left carries kro-ts's labels, annotations or field managers, and no
 * webhook configuration is left pointing at a deleted Service.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { loadYaml } from "../../src/api/index.js";
import { runKro } from "../support/cli-session.js";
import { eventually } from "../support/eventually.js";
import { migrateArgs } from "../support/helm-migration.js";
import { helm } from "../support/helm.js";
import { kubectl, kubectlJson, KubectlError, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const chartDir = fileURLToPath(new URL("../../../test/fixtures/helm/uninstall-twins", import.meta.url));
const suffix = letterSuffix();
const namespace = `helm-twins-${suffix}`;
const group = `${suffix}.twins.kro-ts.test`;
/** Twin releases: uninstalled by helm, released by deleting the instance, deleted by deleting the instance. */
const HELM = "twin-h";
const RELEASED = "twin-r";
const DELETED = "twin-d";
const kindOf = (release: string) =>
  `Twin${release.slice(-1).toUpperCase()}${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const resourceOf = (release: string) => `${kindOf(release).toLowerCase()}s.${group}`;
/** Every cluster-scoped and kube-system object of this suite's releases carries it (the chart's labels). */
const suiteSelector = `twins.kro-ts.test/namespace=${namespace}`;
let tc: TestController;

const kro = (args: readonly string[]) => runKro([...args, "--kubeconfig", testCluster().kubeconfig]);
const helmIn = (args: readonly string[]) => helm([...args, "-n", namespace, "--kubeconfig", testCluster().kubeconfig]);

/** An object of a release, as its manifest names it. */
interface Identity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

interface Live {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager?: string }[];
    deletionTimestamp?: string;
  };
}

/** What is compared between twins: identity and metadata with the release's name replaced. */
interface Seen {
  readonly key: string;
  readonly uid: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly managers: string[];
}

/** Every object of the release, from the manifest helm applied (namespace: as written, or the release's). */
async function manifestOf(release: string): Promise<Identity[]> {
  const manifest = await helmIn(["get", "manifest", release]);
  const loaded = loadYaml(`${release}.yaml`, manifest);
  assert.deepEqual(loaded.problems, []);
  return loaded.documents
    .map((d) => d.value as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } | null)
    .filter((o) => o !== null)
    .map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name }));
}

/** kubectl's name for the kind, unambiguous across groups: `Kind.version.group`, or `Kind` for the core group. */
const kubectlType = (id: Identity) => {
  const [groupOrVersion, version] = id.apiVersion.split("/");
  return version === undefined ? id.kind : `${id.kind}.${version}.${groupOrVersion}`;
};

/** The live object, or undefined when it is gone (or going). For a cluster-scoped kind kubectl ignores -n. */
async function read(id: Identity): Promise<Live | undefined> {
  const out = await kubectl([
    "get",
    kubectlType(id),
    id.name,
    "-n",
    id.namespace ?? namespace,
    "-o",
    "json",
    "--show-managed-fields",
    "--ignore-not-found",
  ]);
  if (out.trim() === "") return undefined;
  const live = JSON.parse(out) as Live;
  return live.metadata.deletionTimestamp === undefined ? live : undefined;
}

const normalise = (release: string, text: string) => text.split(release).join("RELEASE");
const normaliseMap = (release: string, map: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [normalise(release, k), normalise(release, v)]));

/** The release's objects that exist now, keyed by kind/namespace/name with the release name normalised. */
async function census(release: string, ids: readonly Identity[]): Promise<Map<string, Seen>> {
  const seen = new Map<string, Seen>();
  for (const id of ids) {
    const live = await read(id);
    if (live === undefined) continue;
    const key = normalise(release, `${live.kind} ${live.metadata.namespace ?? "(cluster)"}/${live.metadata.name}`);
    seen.set(key, {
      key,
      uid: live.metadata.uid,
      labels: normaliseMap(release, live.metadata.labels),
      annotations: normaliseMap(release, live.metadata.annotations),
      managers: (live.metadata.managedFields ?? []).map((f) => f.manager ?? "").sort(),
    });
  }
  return seen;
}

/** kro-ts's marks: what must be gone from every object it no longer manages. */
function kroMarks(seen: Seen): string[] {
  const ours = (key: string) =>
    key.startsWith("kro.run/") || key.startsWith("internal.kro.run/") || key.startsWith("applyset.kubernetes.io/");
  return [
    ...Object.keys(seen.labels)
      .filter(ours)
      .map((k) => `label ${k}`),
    ...Object.entries(seen.labels)
      .filter(([k, v]) => k === "app.kubernetes.io/managed-by" && v === "kro")
      .map(([k]) => `label ${k}=kro`),
    ...Object.keys(seen.annotations)
      .filter(ours)
      .map((k) => `annotation ${k}`),
    ...seen.managers.filter((m) => m.startsWith("kro")).map((m) => `field manager ${m}`),
  ].map((mark) => `${seen.key}: ${mark}`);
}

const keys = (m: ReadonlyMap<string, Seen>) => [...m.keys()].sort();
const metadataOf = (m: ReadonlyMap<string, Seen>) =>
  [...m.values()]
    .map((s) => ({ key: s.key, labels: s.labels, annotations: s.annotations, managers: s.managers }))
    .sort((a, b) => a.key.localeCompare(b.key));

/** Creating a ConfigMap the release's webhook guards: refused while the webhook is in force (nothing serves it). */
async function createGuarded(release: string, name: string): Promise<void> {
  const cm = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { "twins.kro-ts.test/guarded-by": release } },
  };
  await kubectl(["create", "-f", "-"], JSON.stringify(cm));
}

/** No webhook configuration of this suite names a Service that is not there. */
async function assertNoWebhookToNowhere(): Promise<void> {
  const configs = await kubectlJson<{
    items: {
      metadata: { name: string };
      webhooks?: { clientConfig: { service?: { name: string; namespace: string } } }[];
    }[];
  }>(["get", "validatingwebhookconfigurations", "-l", suiteSelector]);
  for (const config of configs.items)
    for (const webhook of config.webhooks ?? []) {
      const service = webhook.clientConfig.service;
      if (service === undefined) continue;
      const there = await kubectl(["get", "service", service.name, "-n", service.namespace, "--ignore-not-found"]);
      assert.notEqual(
        there.trim(),
        "",
        `ValidatingWebhookConfiguration ${config.metadata.name} points at Service ${service.namespace}/${service.name}, which is gone`,
      );
    }
}

const migrate = (release: string) =>
  migrateArgs({ release, namespace, kind: kindOf(release), group, rgdLabel: `${tc.label.key}=${tc.label.value}` });

async function deleteInstance(release: string): Promise<void> {
  await kubectl(["delete", resourceOf(release), release, "-n", namespace, "--timeout=120s"]);
  await eventually(
    async () => {
      const left = await kubectl(["get", resourceOf(release), release, "-n", namespace, "--ignore-not-found"]);
      assert.equal(left.trim(), "", `the instance ${release} is gone`);
    },
    { timeout: 120_000 },
  );
}

describe("deleting a migrated release's instance leaves what helm uninstall leaves", { timeout: 600_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", "-l", `${tc.label.key}=${tc.label.value}`, "--wait=false", "--ignore-not-found"]);
    // Kept and handed-back objects outside the namespace, whatever the test got to.
    await kubectl(["delete", "validatingwebhookconfigurations,crd", "-l", suiteSelector, "--ignore-not-found"]);
    await kubectl(["delete", "role,rolebinding", "-n", "kube-system", "-l", suiteSelector, "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", ...[RELEASED, DELETED].map(resourceOf), "--wait=false", "--ignore-not-found"]);
  });

  it("as adopted: every object handed back as Helm had it; with kro.run/adopt=delete: exactly what helm uninstall leaves of a twin", async () => {
    const manifests = new Map<string, Identity[]>();
    const underHelm = new Map<string, Map<string, Seen>>();
    for (const release of [HELM, RELEASED, DELETED]) {
      await helmIn(["install", release, chartDir]);
      const ids = await manifestOf(release);
      manifests.set(release, ids);
      const seen = await census(release, ids);
      assert.equal(seen.size, ids.length, `${release}: every object of the manifest is live`);
      for (const s of seen.values()) assert.ok(s.managers.includes("helm"), `${s.key}: written by helm`);
      underHelm.set(release, seen);
    }
    const all = (release: string) => manifests.get(release) ?? [];
    // The fixture's shape: every scope, and a child id past a label value's 63 characters.
    assert.deepEqual(keys(underHelm.get(DELETED) ?? new Map()), [
      `ConfigMap ${namespace}/RELEASE-kept`,
      `ConfigMap ${namespace}/RELEASE-settings`,
      `CustomResourceDefinition (cluster)/gadgets.${namespace}-RELEASE.twins.kro-ts.test`,
      `Role kube-system/${namespace}-RELEASE-leases`,
      `RoleBinding kube-system/${namespace}-RELEASE-leases`,
      `Service ${namespace}/RELEASE-guard`,
      `ServiceAccount ${namespace}/RELEASE-guard`,
      `ValidatingWebhookConfiguration (cluster)/${namespace}-RELEASE-guard`,
    ]);
    // The webhook is in force and fails closed: nothing serves it.
    await eventually(
      async () =>
        assert.rejects(
          createGuarded(DELETED, "refused-before"),
          (e: unknown) => e instanceof KubectlError && /failed calling webhook/.test(e.stderr),
        ),
      { timeout: 30_000 },
    );

    // What helm uninstall leaves: the objects marked keep, as they were.
    await helmIn(["uninstall", HELM]);
    const helmLeft = await eventually(
      async () => {
        const left = await census(HELM, all(HELM));
        assert.deepEqual(keys(left), [
          `ConfigMap ${namespace}/RELEASE-kept`,
          `CustomResourceDefinition (cluster)/gadgets.${namespace}-RELEASE.twins.kro-ts.test`,
        ]);
        return left;
      },
      { timeout: 60_000 },
    );

    // Migrate the other two.
    for (const release of [RELEASED, DELETED]) {
      const out = await kro(migrate(release));
      assert.match(out.stderr, /adopted 8 object\(s\) in place \(same UIDs\)/, out.stderr);
      const adopted = await census(release, all(release));
      assert.deepEqual(
        [...adopted.values()].map((s) => [s.key, s.uid]).sort(),
        [...(underHelm.get(release)?.values() ?? [])].map((s) => [s.key, s.uid]).sort(),
        `${release}: adopted in place`,
      );
      // Every object, the kube-system and cluster-scoped ones and the long id's included, carries
      // kro-ts's marks now: their absence later is the release's doing, not a missed adoption.
      for (const seen of adopted.values()) {
        assert.ok(kroMarks(seen).length > 0, `${release}: ${seen.key} was not marked as adopted`);
        assert.ok(seen.managers.includes("kro.run/applyset"), `${release}: ${seen.key} is applied by kro-ts`);
      }
    }

    // Deleted as adopted: every object handed back, the same objects, with Helm's metadata only.
    await deleteInstance(RELEASED);
    const released = await eventually(
      async () => {
        const now = await census(RELEASED, all(RELEASED));
        assert.deepEqual([...now.values()].flatMap(kroMarks), [], "nothing left carries kro-ts's marks");
        return now;
      },
      { timeout: 60_000 },
    );
    const before = underHelm.get(RELEASED) ?? new Map<string, Seen>();
    assert.deepEqual(
      [...released.values()].map((s) => [s.key, s.uid]).sort(),
      [...before.values()].map((s) => [s.key, s.uid]).sort(),
      "every object kept, same UIDs",
    );
    assert.deepEqual(
      metadataOf(released),
      metadataOf(before),
      "labels, annotations and field managers as Helm left them",
    );

    // Deleted after kro.run/adopt=delete: what helm uninstall leaves of its twin, and as helm left it.
    await kubectl(["annotate", resourceOf(DELETED), DELETED, "-n", namespace, "--overwrite", "kro.run/adopt=delete"]);
    await deleteInstance(DELETED);
    const deleted = await eventually(
      async () => {
        const now = await census(DELETED, all(DELETED));
        assert.deepEqual(keys(now), keys(helmLeft), "what remains is what helm uninstall leaves");
        return now;
      },
      { timeout: 60_000 },
    );
    assert.deepEqual([...deleted.values()].flatMap(kroMarks), [], "nothing left carries kro-ts's marks");
    assert.deepEqual(
      metadataOf(deleted),
      metadataOf(helmLeft),
      "the kept objects carry what helm uninstall leaves on them",
    );
    for (const seen of deleted.values())
      assert.equal(seen.uid, underHelm.get(DELETED)?.get(seen.key)?.uid, `${seen.key}: kept, not recreated`);

    // The deleted release's webhook went with its Service: ConfigMaps it guarded are created again.
    await createGuarded(DELETED, "twin-d-admitted-after");
    await assertNoWebhookToNowhere();

    // The handed-back release is Helm's again: rolled back to its migrated revision, it is
    // uninstalled by helm exactly as its twin was.
    await helmIn(["rollback", RELEASED, "1"]);
    assert.match(await helmIn(["status", RELEASED]), /^STATUS: deployed$/m);
    const rolledBack = await census(RELEASED, all(RELEASED));
    assert.deepEqual(
      [...rolledBack.values()].map((s) => [s.key, s.uid]).sort(),
      [...before.values()].map((s) => [s.key, s.uid]).sort(),
      "helm rollback takes the same objects back",
    );
    await helmIn(["uninstall", RELEASED]);
    await eventually(
      async () => {
        const now = await census(RELEASED, all(RELEASED));
        assert.deepEqual(keys(now), keys(helmLeft));
        assert.deepEqual(metadataOf(now), metadataOf(helmLeft));
      },
      { timeout: 60_000 },
    );
    await createGuarded(RELEASED, "twin-r-admitted-after");
    await assertNoWebhookToNowhere();
  });
});
