/**
 * Cached children keep only what the served graphs read or set (cache-projections.ts), on the
 * real API server. The cache itself: a Service child is cached without managedFields and without
 * the spec fields the server defaulted (sessionAffinity), with what the graph reads
 * (spec.clusterIP), sets (ports) and the whole status. The story: a converged instance costs no
 * write (drift detection compares only fields we keep: a Secret written through stringData is
 * compared through `data`), a hand edit is restored, and an RGD update that starts reading a
 * field the cache dropped gets its value — the kind is re-listed with the wider projection.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileRgd, type CompiledGraph } from "../../src/graph/index.js";
import { createKroCelEnvironment } from "../../src/expr/index.js";
import { InformerManager, stripManagedFields } from "../../src/kube/index.js";
import { ChildWatches } from "../../src/controller/watches/child-watches.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const suffix = letterSuffix();
const kind = `Projection${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `projection-${suffix}`;
const namespace = `projection-${suffix}`;
let tc: TestController;

/** `affinity`: the RGD update reads a field no earlier version read (server-defaulted, so dropped). */
const resources = (affinity: boolean) => `
  resources:
    - id: svc
      readyWhen: ["\${svc.spec.clusterIP != ''}"]
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${schema.metadata.name}-svc" }
        spec: { selector: { app: "\${schema.metadata.name}" }, ports: [{ port: 80 }] }
    - id: token
      template:
        apiVersion: v1
        kind: Secret
        metadata: { name: "\${schema.metadata.name}-token" }
        stringData: { token: "\${schema.spec.greeting}" }
    - id: note
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-note" }
        data:
          ip: "\${svc.spec.clusterIP}"${
            affinity
              ? `
          affinity: "\${svc.spec.sessionAffinity}"`
              : ""
          }
`;

const rgdYaml = (affinity: boolean) => `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      greeting: string | default=hello
${resources(affinity)}`;

const instanceYaml = `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: demo, namespace: ${namespace} }\nspec: {}\n`;

interface Cm {
  metadata: { resourceVersion: string };
  data?: Record<string, string>;
}
const note = () => kubectlJson<Cm>(["get", "configmap", "demo-note", "-n", namespace]);
const serviceInformers = () =>
  tc.controller.watching().filter((o) => o.kind === "Service" && o.labelSelector !== undefined);

describe("cached children are projected on what the served graphs read", { timeout: 180_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgdYaml(false));
    await waitRgdActive(rgdName);
    await kubectl(["apply", "-f", "-"], instanceYaml);
    await eventually(
      async () => {
        const o = await kubectlJson<{ status?: { state?: string } }>(["get", plural, "demo", "-n", namespace]);
        assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
      },
      { timeout: 60_000 },
    );
  });

  after(async () => {
    await kubectl(["delete", plural, "--all", "-n", namespace, "--wait=true", "--timeout=60s"]).catch(() => undefined);
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false"]);
    await tc.stop();
  });

  it("caches a child without managedFields and unread server defaults, with what the graph reads and sets", async () => {
    // The controller's own cache is not reachable from here: the same ChildWatches, on the same server.
    const rgd = await kubectlJson(["get", "rgd", rgdName]);
    const { graph } = compileRgd(rgd, { env: createKroCelEnvironment({ enableRuntime: true }) });
    assert.ok(graph);
    const informers = new InformerManager(tc.client, { transform: stripManagedFields });
    const watches = new ChildWatches(
      tc.client,
      informers,
      () => undefined,
      () => undefined,
    );
    try {
      watches.retain(rgdName, graph);
      assert.deepEqual([...(await watches.ensure(graph)).keys()], []);
      const cached = watches
        .lookup(new Map())
        .get({ apiVersion: "v1", kind: "Service", namespace, name: "demo-svc" }) as {
        metadata: Record<string, unknown>;
        spec: Record<string, unknown>;
        status?: unknown;
      };
      const live = await kubectlJson<{ spec: Record<string, unknown> }>([
        "get",
        "service",
        "demo-svc",
        "-n",
        namespace,
      ]);
      assert.equal(live.spec.sessionAffinity, "None", "the server defaulted it (the field this test expects dropped)");
      assert.deepEqual(Object.keys(cached.spec).sort(), ["clusterIP", "ports", "selector"]);
      assert.equal(cached.spec.clusterIP, live.spec.clusterIP);
      assert.equal(cached.metadata.managedFields, undefined);
      assert.equal(cached.metadata.creationTimestamp, undefined);
      assert.ok(typeof cached.metadata.uid === "string" && cached.metadata.labels !== undefined && "status" in cached);
      const secret = watches
        .lookup(new Map())
        .get({ apiVersion: "v1", kind: "Secret", namespace, name: "demo-token" }) as { data?: Record<string, string> };
      assert.equal(
        Buffer.from(secret.data?.token ?? "", "base64").toString(),
        "hello",
        "a Secret keeps data: what stringData is stored as",
      );

      // The same ChildWatches, told of a graph that reads the dropped field, re-lists and has it.
      const widerRgd = structuredClone(rgd) as {
        spec: { resources: { id: string; template: { data?: Record<string, string> } }[] };
      };
      const noteTemplate = widerRgd.spec.resources.find((r) => r.id === "note")?.template;
      assert.ok(noteTemplate?.data);
      noteTemplate.data.affinity = "${svc.spec.sessionAffinity}";
      const next = compileRgd(widerRgd, { env: createKroCelEnvironment({ enableRuntime: true }) })
        .graph as CompiledGraph;
      watches.retain(rgdName, next);
      await watches.ensure(next);
      const relisted = watches
        .lookup(new Map())
        .get({ apiVersion: "v1", kind: "Service", namespace, name: "demo-svc" }) as { spec: Record<string, unknown> };
      assert.equal(relisted.spec.sessionAffinity, "None");
    } finally {
      await watches.stop();
      informers.stopAll();
    }
  });

  it("sends no write for a converged instance on resync, and restores a hand-edited field", async () => {
    const versions = async () =>
      JSON.stringify(
        await Promise.all(
          ["service/demo-svc", "secret/demo-token", "configmap/demo-note"].map(
            async (o) => (await kubectlJson<Cm>(["get", o, "-n", namespace])).metadata.resourceVersion,
          ),
        ),
      );
    await eventually(async () => {
      const first = await versions();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(await versions(), first);
    });
    const mark = tc.requests.length;
    const evaluations = tc.evaluated.length;
    tc.controller.resync();
    await eventually(() => {
      assert.ok(tc.evaluated.slice(evaluations).includes(`${namespace}/demo`));
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.deepEqual(
      tc
        .writes(mark)
        .filter((r) => !r.path.includes(`/${plural}/`))
        .map((r) => `${r.verb} ${r.path} ${r.status}`),
      [],
    );

    const ip = (await note()).data?.ip;
    await kubectl([
      "patch",
      "configmap",
      "demo-note",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"data":{"ip":"tampered"}}',
    ]);
    await eventually(async () => {
      assert.equal((await note()).data?.ip, ip);
    });
  });

  it("an RGD update reading a field the cache dropped gets its value (the kind is re-listed)", async () => {
    const [before] = serviceInformers();
    assert.ok(before?.variant !== undefined);
    await kubectl(["apply", "-f", "-"], rgdYaml(true));
    await eventually(
      async () => {
        assert.equal((await note()).data?.affinity, "None");
      },
      { timeout: 60_000 },
    );
    await eventually(() => {
      const now = serviceInformers();
      assert.equal(now.length, 1, "the narrower informer is released once the wider one is in");
      assert.notEqual(now[0]?.variant, before.variant);
    });
  });
});
