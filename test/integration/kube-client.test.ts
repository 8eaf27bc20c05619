// The kube client against the shared real control plane: server-side apply semantics, raw JSON
// round trips of a CRD and custom resource full of x-kubernetes-* keys and unknown fields,
// preconditions, status writes, dryRun, pagination, metadata-only informers, a server-closed
// watch resumed without relist, and exec-plugin authentication.
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it, type TestContext } from "node:test";
import {
  createKubeClient,
  loadKubeconfig,
  TransportError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";

/** A CA unrelated to the test cluster (its key was thrown away): nothing it "verifies" exists. */
const SELF_SIGNED_OTHER_CA = `-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUGX9k6ASrGfCVfE87aJ3fE5cxY/MwCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVa3JvLXRlc3QtdW5yZWxhdGVkLWNhMCAXDTI2MTEzMDAyMTk0
MFoYDzIxMjYxMTA2MDIxOTQwWjAgMR4wHAYDVQQDDBVrcm8tdGVzdC11bnJlbGF0
ZWQtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAT83ziSJwYy0UnnQTJcZv6R
zo/6tcTqbl8ih/RdvrRcEag64JkE29or5zjTEeAlzxUZMZwpBtAZZvHKNKXaaOtL
o1MwUTAdBgNVHQ4EFgQULe9zQsjLnQ2UqrWCi7uCoswTrfQwHwYDVR0jBBgwFoAU
Le9zQsjLnQ2UqrWCi7uCoswTrfQwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEAgvgOEVSljFUlJLZ/W+FLYvOvk+k2v3RTImlu9fvJbTsCIFTappPC
EAWQr80VxI1+LxLB4GiC8O9iL5rNEU1JBc9Z
-----END CERTIFICATE-----
`;

async function client(t: TestContext): Promise<KubeClient> {
  const c = await createKubeClient({ kubeconfig: testCluster().kubeconfig });
  t.after(() => {
    c.close();
  });
  return c;
}

const cm = (ns: string, name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns },
  data,
});

describe("kube client on a real API server", () => {
  it("server-side apply: create, no-op, update, conflict without force, force takes ownership", async (t) => {
    const ns = await testNamespace(t, "kube-ssa");
    const kube = await client(t);
    const created = await kube.apply(cm(ns, "ssa", { a: "1", b: "2" }), { fieldManager: "alpha" });
    const rv1 = created.metadata?.resourceVersion;
    assert.ok(rv1 !== undefined && created.metadata?.uid !== undefined);
    assert.deepEqual(created.data, { a: "1", b: "2" });

    const again = await kube.apply(cm(ns, "ssa", { a: "1", b: "2" }), { fieldManager: "alpha" });
    assert.equal(again.metadata?.resourceVersion, rv1, "applying the same intent is a no-op");

    const updated = await kube.apply(cm(ns, "ssa", { a: "1", b: "3" }), { fieldManager: "alpha" });
    assert.notEqual(updated.metadata?.resourceVersion, rv1);
    assert.equal((updated.data as Record<string, string>).b, "3");

    const conflict = await kube.apply(cm(ns, "ssa", { b: "other" }), { fieldManager: "beta" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(isConflict(conflict), true, String(conflict));
    assert.match(String(conflict), /conflict with "alpha"/);
    assert.equal(
      (await kube.get({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "ssa" })).data?.constructor,
      Object,
    );

    const forced = await kube.apply(cm(ns, "ssa", { b: "other" }), { fieldManager: "beta", force: true });
    assert.deepEqual(forced.data, { a: "1", b: "other" });
    const owners = (forced.metadata?.managedFields ?? []).map((f) => [
      f.manager,
      Object.keys((f.fieldsV1 as { "f:data"?: object } | undefined)?.["f:data"] ?? {}).sort(),
    ]);
    assert.deepEqual(owners.sort(), [
      ["alpha", ["f:a"]],
      ["beta", ["f:b"]],
    ]);
  });

  it("round-trips a CRD and a custom resource full of x-kubernetes-* keys, unknown fields and timestamps unchanged", async (t) => {
    const ns = await testNamespace(t, "kube-raw");
    const kube = await client(t);
    const group = `${ns}.kro-test.example`;
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [{ rule: "self.replicas <= 10", message: "at most 10" }],
          properties: {
            replicas: { type: "integer", default: 1 },
            port: { "x-kubernetes-int-or-string": true },
            free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            ports: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: {
                type: "object",
                required: ["name"],
                properties: { name: { type: "string" }, n: { type: "integer" } },
              },
            },
            labels: { type: "object", "x-kubernetes-map-type": "granular", additionalProperties: { type: "string" } },
            embedded: {
              type: "object",
              "x-kubernetes-embedded-resource": true,
              "x-kubernetes-preserve-unknown-fields": true,
            },
            since: { type: "string", format: "date-time" },
          },
        },
        status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    };
    const crd: KubeObject = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `gizmos.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", listKind: "GizmoList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: schema },
            subresources: { status: {} },
          },
        ],
      },
    };
    t.after(async () => {
      await kubectl(["delete", "crd", `gizmos.${group}`, "--wait=false", "--ignore-not-found"]);
    });
    const appliedCrd = await kube.apply(crd, { fieldManager: "kro-test" });
    assert.deepEqual((appliedCrd.spec as { versions: { schema: unknown }[] }).versions[0]?.schema, {
      openAPIV3Schema: schema,
    });
    await eventually(async () => {
      const got = await kube.get({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        name: `gizmos.${group}`,
      });
      assert.ok(
        (got.status as { conditions?: { type: string; status: string }[] }).conditions?.some(
          (c) => c.type === "Established" && c.status === "True",
        ),
      );
    });

    const spec = {
      replicas: 3,
      port: "http",
      since: "2024-02-29T12:34:56Z",
      free: {
        anything: { deep: [1, "two", { three: null }] },
        "x-kubernetes-lookalike": true,
        emptyList: [],
        emptyObject: {},
      },
      ports: [
        { name: "a", n: 1 },
        { name: "b", n: 2 },
      ],
      labels: { tier: "web" },
      embedded: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inner" }, data: { k: "v" }, unknownInner: 1 },
    };
    const gizmo: KubeObject = {
      apiVersion: `${group}/v1`,
      kind: "Gizmo",
      metadata: { name: "g1", namespace: ns, annotations: { note: "kept" } },
      spec,
    };
    // Discovery learns the new kind on a miss; the CRD may take a moment to be served.
    const applied = await eventually(() => kube.apply(gizmo, { fieldManager: "kro-test", fieldValidation: "Strict" }));
    assert.deepEqual(applied.spec, spec);
    const viaKubectl = await kubectlJson(["get", `gizmos.${group}`, "-n", ns, "g1", "--show-managed-fields"]);
    assert.deepEqual(
      await kube.get({ apiVersion: `${group}/v1`, kind: "Gizmo", namespace: ns, name: "g1" }),
      viaKubectl,
    );
    assert.equal(typeof (viaKubectl.metadata as { creationTimestamp: unknown }).creationTimestamp, "string");

    // Status subresource: apply and merge patch go to /status and leave spec alone.
    const withStatus = await kube.applyStatus(
      {
        apiVersion: `${group}/v1`,
        kind: "Gizmo",
        metadata: { name: "g1", namespace: ns },
        status: { phase: "Ready", observedAt: "2024-01-01T00:00:00Z" },
      },
      { fieldManager: "kro-status" },
    );
    assert.deepEqual(withStatus.status, { phase: "Ready", observedAt: "2024-01-01T00:00:00Z" });
    const patched = await kube.patch(
      { apiVersion: `${group}/v1`, kind: "Gizmo", namespace: ns, name: "g1" },
      { status: { phase: "Done" }, spec: { replicas: 9 } },
      { subresource: "status" },
    );
    assert.deepEqual(
      [(patched.status as { phase: string }).phase, (patched.spec as { replicas: number }).replicas],
      ["Done", 3],
    );

    // Strict field validation and CEL validation surface as Invalid.
    const bad = await kube.apply({ ...gizmo, spec: { ...spec, replicas: 11 } }, { fieldManager: "kro-test" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(isInvalid(bad), true, String(bad));
  });

  it("create, dryRun, delete preconditions, metadata-only get and paginated list", async (t) => {
    const ns = await testNamespace(t, "kube-crud");
    const kube = await client(t);
    const dry = await kube.create(cm(ns, "dry", { x: "1" }), { dryRun: true });
    assert.equal(dry.metadata?.name, "dry");
    await assert.rejects(kube.get({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "dry" }), isNotFound);
    for (let i = 0; i < 5; i++) await kube.create(cm(ns, `page-${i}`, { i: String(i) }), { fieldManager: "kro-test" });
    await assert.rejects(kube.create(cm(ns, "page-0", {})), isAlreadyExists);
    const list = await kube.list("v1", "ConfigMap", { namespace: ns, limit: 2, labelSelector: "" });
    assert.deepEqual(
      list.items.map((i) => i.metadata?.name).filter((n) => n?.startsWith("page-")),
      ["page-0", "page-1", "page-2", "page-3", "page-4"],
    );
    assert.ok(list.items.every((i) => i.kind === "ConfigMap"));

    const meta = await kube.get(
      { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "page-1" },
      { metadataOnly: true },
    );
    assert.equal(meta.kind, "PartialObjectMetadata");
    assert.equal(meta.data, undefined);

    const ref = { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "page-1" };
    await assert.rejects(
      kube.delete(ref, { preconditions: { uid: "00000000-0000-0000-0000-000000000000" } }),
      isConflict,
    );
    await assert.rejects(kube.delete(ref, { preconditions: { resourceVersion: "1" } }), isConflict);
    await kube.delete(ref, {
      preconditions: { uid: meta.metadata?.uid ?? "", resourceVersion: meta.metadata?.resourceVersion ?? "" },
      propagationPolicy: "Background",
    });
    await assert.rejects(kube.get(ref), isNotFound);
  });

  it("resumes a watch the server closed without a full relist, and informs in metadata-only mode", async (t) => {
    const ns = await testNamespace(t, "kube-resume");
    const kube = await client(t);
    const informer = kube.informer({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, watchTimeoutSeconds: 1 });
    const meta = kube.informer({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, metadataOnly: true });
    t.after(async () => {
      await Promise.all([informer.stop(), meta.stop()]);
    });
    informer.start();
    meta.start();
    await Promise.all([informer.waitForSync({ timeoutMs: 30_000 }), meta.waitForSync({ timeoutMs: 30_000 })]);
    await kube.create(cm(ns, "before", { k: "v" }));
    await eventually(() => {
      assert.ok((informer.stats.reconnects.closed ?? 0) >= 2, JSON.stringify(informer.stats));
    });
    await kube.create(cm(ns, "after", { k: "v" }));
    await eventually(() => {
      assert.deepEqual(
        informer.store
          .list()
          .map((o) => o.metadata?.name)
          .filter((n) => n !== "kube-root-ca.crt")
          .sort(),
        ["after", "before"],
      );
      assert.deepEqual(
        meta.store
          .list()
          .map((o) => o.metadata?.name)
          .filter((n) => n !== "kube-root-ca.crt")
          .sort(),
        ["after", "before"],
      );
    });
    assert.equal(informer.stats.lists, 1, "the server closing the watch does not cause a relist");
    assert.equal(informer.stats.reconnects.gone, undefined);
    assert.equal(informer.store.getByName(ns, "after")?.data?.constructor, Object);
    const metaObject = meta.store.getByName(ns, "after");
    assert.equal(metaObject?.kind, "PartialObjectMetadata");
    assert.equal(metaObject.data, undefined);
  });

  it("verifies the server with the kubeconfig's CA, fails with a wrong CA, and skips verification only when told", async (t) => {
    const good = loadKubeconfig({ kubeconfig: testCluster().kubeconfig, env: {} });
    assert.ok(good.ca !== undefined && good.token !== undefined);
    const otherCa = loadKubeconfig({ kubeconfig: testCluster().kubeconfig, env: {} });
    const wrongCa = await createKubeClient({
      connection: { ...otherCa, ca: Buffer.from(SELF_SIGNED_OTHER_CA) },
      maxRetries: 0,
    });
    const insecure = await createKubeClient({
      connection: {
        source: "test",
        server: good.server,
        namespace: "default",
        insecureSkipTlsVerify: true,
        token: good.token,
      },
    });
    t.after(() => {
      wrongCa.close();
      insecure.close();
    });
    await assert.rejects(
      wrongCa.list("v1", "Namespace"),
      (e: unknown) => e instanceof TransportError && /certificate/i.test(e.message),
    );
    assert.ok((await insecure.list("v1", "Namespace")).items.length > 0);
  });

  it("refreshes discovery when someone else installs a CRD (trackCrdChanges)", async (t) => {
    const ns = await testNamespace(t, "kube-crd-track");
    const kube = await client(t);
    const stop = kube.trackCrdChanges();
    t.after(stop);
    const lease = kube.informers.acquire({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadataOnly: true,
    });
    t.after(() => lease.release());
    await lease.informer.waitForSync({ timeoutMs: 30_000 });
    await kube.resourceFor("v1", "ConfigMap");
    const before = kube.discovery.invalidations;
    const group = `${ns}.kro-test.example`;
    t.after(async () => {
      await kubectl(["delete", "crd", `sprockets.${group}`, "--wait=false", "--ignore-not-found"]);
    });
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `sprockets.${group}` },
        spec: {
          group,
          scope: "Cluster",
          names: { plural: "sprockets", kind: "Sprocket" },
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
        },
      }),
    );
    await eventually(() => {
      assert.ok(kube.discovery.invalidations > before);
    });
    const info = await eventually(() => kube.resourceFor(`${group}/v1`, "Sprocket"));
    assert.deepEqual([info.resource, info.namespaced], ["sprockets", false]);
  });

  it("authenticates with an exec credential plugin, runs it once, and re-runs it after a 401", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "kube-exec-"));
    t.after(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    const plugin = path.join(dir, "credential-plugin");
    // The first run hands out a stale token (the server answers 401); later runs the real one.
    await writeFile(
      plugin,
      `#!${process.execPath}
const fs = require("node:fs");
fs.appendFileSync(${JSON.stringify(path.join(dir, "runs"))}, "x");
const runs = fs.readFileSync(${JSON.stringify(path.join(dir, "runs"))}, "utf8").length;
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential",
  status: { token: runs === 1 ? "stale" : process.env.REAL_TOKEN, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));
`,
    );
    await chmod(plugin, 0o755);
    const base = JSON.parse(await readFile(testCluster().kubeconfig, "utf8")) as {
      users: { user: Record<string, unknown> }[];
    };
    const user = base.users[0];
    assert.ok(user);
    user.user = {
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: plugin,
        env: [{ name: "REAL_TOKEN", value: testCluster().token }],
        interactiveMode: "Never",
      },
    };
    const kubeconfig = path.join(dir, "kubeconfig");
    await writeFile(kubeconfig, JSON.stringify(base));
    const kube = await createKubeClient({ kubeconfig, env: { PATH: process.env.PATH } });
    t.after(() => {
      kube.close();
    });
    const nsList = await kube.list("v1", "Namespace");
    assert.ok(nsList.items.some((n) => n.metadata?.name === "default"));
    await kube.get({ apiVersion: "v1", kind: "Namespace", name: "default" });
    assert.equal(
      kube.execCredentialRuns,
      2,
      "one stale run answered 401, one fresh run cached for every later request",
    );
  });
});
