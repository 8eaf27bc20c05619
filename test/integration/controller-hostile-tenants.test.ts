/**
 * Many expensive instances of one tenant beside another tenant's cheap ones, on the real control
 * plane with the controller in its own process: 25 CEL-dialect instances whose one child takes a
 * quadratic comprehension (legitimate work under the cost limits, ~50 ms per pass) and 25
 * template-dialect instances whose child hashes two bcrypt passwords (~150 ms per pass). Their
 * passes run past the main thread's slice, so they are evaluated in the evaluation pool, in turn
 * by namespace, and /healthz keeps answering; the cheap tenant's passes never leave the main
 * thread. The expensive instances are throttled, never failed: all of them converge. Then the
 * controller is killed (-9) and started again with every instance present, and a new cheap
 * instance is created the moment it is up.
 *
 * Times are printed (cheap tenant alone and beside the expensive one, the slowest probe, the first
 * cheap instance after the restart), not asserted: they depend on the machine's load. What is
 * asserted is where the work ran and that everything converged.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";

interface Instance {
  metadata: { name: string };
  status?: { state?: string; conditions?: { type: string; status: string; message?: string }[] };
}

const suffix = letterSuffix();
const label = `kro-ts.test/controller=tenants-${suffix}`;
const cheap = { kind: `Cheap${suffix}`, plural: `cheap${suffix}s`, rgd: `cheap-${suffix}` };
const heavy = { kind: `Heavy${suffix}`, plural: `heavy${suffix}s`, rgd: `heavy-${suffix}` };
const hashing = { kind: `Hashing${suffix}`, group: `${suffix}.tenants.example.com`, rgd: `hashing-${suffix}` };
const hashingPlural = `hashing${suffix}s`;
const ns = {
  quiet: `calm-q-${suffix}`,
  busy: `calm-b-${suffix}`,
  hostile: `hostile-${suffix}`,
  after: `calm-r-${suffix}`,
};
const CHEAP = 20;
const HOSTILE = 25;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const rgds = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: ${cheap.rgd}, labels: { kro-ts.test/controller: tenants-${suffix} } }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${cheap.kind}
    spec: { value: string | default=fine }
  resources:
    - id: a
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-a" }
        data: { value: "\${schema.spec.value}" }
    - id: b
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-b" }
        data: { from: "\${a.metadata.name}" }
---
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: ${heavy.rgd}, labels: { kro-ts.test/controller: tenants-${suffix} } }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${heavy.kind}
    spec: { size: integer | default=300 }
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-heavy" }
        data:
          matches: "\${string(size(lists.range(schema.spec.size).map(i, lists.range(schema.spec.size).filter(j, (i * j) % 7 == 3))))}"
---
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: ${hashing.rgd}, labels: { kro-ts.test/controller: tenants-${suffix} } }
spec:
  resourceKind: { group: ${hashing.group}, kind: ${hashing.kind}, version: v1 }
  childResources:
    - apiVersion: v1
      kind: Secret
      nameTemplate: "{{.parent.metadata.name}}-hashes"
      template: |
        stringData:
          a: {{ bcrypt "a" | quote }}
          b: {{ bcrypt "b" | quote }}
`;

const hashingCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${hashingPlural}.${hashing.group} }
spec:
  group: ${hashing.group}
  scope: Namespaced
  names: { kind: ${hashing.kind}, plural: ${hashingPlural}, singular: ${hashing.kind.toLowerCase()} }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`;

const cheapYaml = (namespace: string, names: readonly string[]): string =>
  names
    .map(
      (n) =>
        `apiVersion: kro.run/v1alpha1\nkind: ${cheap.kind}\nmetadata: { name: ${n}, namespace: ${namespace} }\nspec: {}\n`,
    )
    .join("---\n");

async function activeCount(plural: string, namespace: string, names: readonly string[]): Promise<number> {
  const list = await kubectlJson<{ items: Instance[] }>(["get", plural, "-n", namespace]);
  return list.items.filter((i) => names.includes(i.metadata.name) && i.status?.state === "ACTIVE").length;
}

/** Creates `count` cheap instances in `namespace` and returns the ms until all are ACTIVE. */
async function cheapTenant(namespace: string, prefix: string, count = CHEAP): Promise<number> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  const started = performance.now();
  await kubectl(["apply", "-f", "-"], cheapYaml(namespace, names));
  await eventually(
    async () => {
      assert.equal(await activeCount(cheap.plural, namespace, names), count);
    },
    { timeout: 240_000, interval: 100 },
  );
  return performance.now() - started;
}

/** Per-namespace pooled evaluation work from the controller's /metrics. */
async function pooledWork(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const work = new Map<string, number>();
  for (const match of text.matchAll(/^kro_namespace_pooled_evaluation_seconds_total\{namespace="([^"]*)"\} (\S+)$/gm))
    work.set(match[1] ?? "", Number(match[2]));
  return work;
}

/** /healthz at 4 Hz; a probe's wait ends only after 10 s (a blocked loop would not answer for much longer). */
function probeHealth(port: () => number): {
  stop(): Promise<{ count: number; slowestMs: number; failures: string[] }>;
} {
  const state = { on: true, count: 0, slowestMs: 0, failures: [] as string[] };
  const loop = (async () => {
    while (state.on) {
      const sent = performance.now();
      try {
        const res = await fetch(`http://127.0.0.1:${port()}/healthz`, { signal: AbortSignal.timeout(10_000) });
        if (res.status !== 200) state.failures.push(`status ${res.status}`);
      } catch (e) {
        state.failures.push(e instanceof Error ? e.message : String(e));
      }
      state.count++;
      state.slowestMs = Math.max(state.slowestMs, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    async stop() {
      state.on = false;
      await loop;
      return { count: state.count, slowestMs: Math.round(state.slowestMs), failures: state.failures };
    },
  };
}

describe("expensive tenants are evaluated off the controller's main thread", { timeout: 900_000 }, () => {
  let controller: ControllerProcess;
  let healthPort = 0;
  let metricsPort = 0;
  const start = async (): Promise<void> => {
    healthPort = await freePort();
    metricsPort = await freePort();
    controller = await startControllerProcess(testCluster().kubeconfig, [
      "--rgd-selector",
      label,
      "--health-probe-bind-address",
      `127.0.0.1:${healthPort}`,
      "--metrics-bind-address",
      `127.0.0.1:${metricsPort}`,
      "--log-level",
      "info",
    ]);
  };

  before(async () => {
    for (const namespace of Object.values(ns)) await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], hashingCrd);
    await start();
    await kubectl(["apply", "-f", "-"], rgds);
    await eventually(
      async () => {
        for (const name of [cheap.rgd, heavy.rgd, hashing.rgd]) {
          const rgd = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", name]);
          assert.equal(rgd.status?.state, "Active", `${name}: ${JSON.stringify(rgd.status)}`);
        }
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await controller.stop();
    await kubectl(["delete", "rgd", cheap.rgd, heavy.rgd, hashing.rgd, "--wait=false", "--ignore-not-found"]);
    for (const namespace of Object.values(ns))
      await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", `${hashingPlural}.${hashing.group}`, "--wait=false", "--ignore-not-found"]);
  });

  it("the cheap tenant converges beside 50 expensive instances, which converge too; /healthz answers throughout", async () => {
    const quietMs = await cheapTenant(ns.quiet, "q");
    const probe = probeHealth(() => healthPort);
    const heavyNames = Array.from({ length: HOSTILE }, (_, i) => `heavy-${i}`);
    const hashingNames = Array.from({ length: HOSTILE }, (_, i) => `hash-${i}`);
    await kubectl(
      ["apply", "-f", "-"],
      [
        ...heavyNames.map(
          (n) =>
            `apiVersion: kro.run/v1alpha1\nkind: ${heavy.kind}\nmetadata: { name: ${n}, namespace: ${ns.hostile} }\nspec: {}\n`,
        ),
        ...hashingNames.map(
          (n) =>
            `apiVersion: ${hashing.group}/v1\nkind: ${hashing.kind}\nmetadata: { name: ${n}, namespace: ${ns.hostile} }\nspec: {}\n`,
        ),
      ].join("---\n"),
    );
    const busyMs = await cheapTenant(ns.busy, "b");
    // Throttled, never failed: every expensive instance converges.
    await eventually(
      async () => {
        assert.equal(await activeCount(heavy.plural, ns.hostile, heavyNames), HOSTILE);
        const secrets = await kubectlJson<{ items: { metadata: { name: string }; data?: Record<string, string> }[] }>([
          "get",
          "secrets",
          "-n",
          ns.hostile,
        ]);
        const hashed = secrets.items.filter((s) => s.metadata.name.endsWith("-hashes") && s.data?.b !== undefined);
        assert.equal(hashed.length, HOSTILE);
      },
      { timeout: 400_000, interval: 500 },
    );
    const health = await probe.stop();
    const work = await pooledWork(metricsPort);
    console.log(
      `cheap tenant alone ${Math.round(quietMs)} ms, beside ${2 * HOSTILE} expensive instances ${Math.round(busyMs)} ms (ratio ${(busyMs / Math.max(quietMs, 1)).toFixed(2)}); ${health.count} probes, slowest ${health.slowestMs} ms; pooled work by namespace ${JSON.stringify(Object.fromEntries(work))}`,
    );
    assert.deepEqual(health.failures, [], "every /healthz probe answered 200");
    assert.ok(health.count >= 5, "probed throughout");
    assert.ok((work.get(ns.hostile) ?? 0) > 0, "the expensive tenant's passes ran in the evaluation pool");
    assert.equal(work.get(ns.quiet) ?? 0, 0, "the cheap tenant's passes stayed on the main thread");
    assert.equal(work.get(ns.busy) ?? 0, 0, "the cheap tenant's passes stayed on the main thread");
    const heavyOne = await kubectlJson<Instance>(["get", heavy.plural, "heavy-0", "-n", ns.hostile]);
    assert.ok(
      !(heavyOne.status?.conditions ?? []).some((c) => /time limit/.test(c.message ?? "")),
      JSON.stringify(heavyOne.status),
    );
    assert.ok(controller.alive(), controller.output().slice(-2000));
  });

  it("after kill -9, with every expensive instance present, a new cheap instance converges", async () => {
    const pid = controller.pid;
    await controller.kill();
    await start();
    assert.notEqual(controller.pid, pid);
    const probe = probeHealth(() => healthPort);
    const firstMs = await cheapTenant(ns.after, "r", 1);
    const health = await probe.stop();
    console.log(
      `after the restart: a new cheap instance ACTIVE ${Math.round(firstMs)} ms after the controller started; ${health.count} probes, slowest ${health.slowestMs} ms`,
    );
    assert.deepEqual(health.failures, [], "every /healthz probe answered 200");
    assert.ok(controller.alive(), controller.output().slice(-2000));
  });
});
