/**
 * Recovery after a kube-apiserver restart: the controller as users run it (its own process) on a
 * cluster of its own, kube-apiserver stopped long enough for every watch's backoff to grow (10 s:
 * 500 ms doubling reaches 16 s), then started again. An instance created the moment /readyz
 * answers converges, idle and with reconciles in flight, and the controller rides out both
 * restarts. How soon is printed, not asserted: the bench (bench/scenarios/apiserver-restart.mjs)
 * measures it, and the wakes that make it prompt are tested with backoffs no run sits out
 * (src/kube/informer.test.ts, src/kube/client.test.ts, kube-informer-restart.test.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createKubeClient } from "../../src/index.js";
import { startLocalCluster } from "../../src/localcluster/index.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess } from "../support/controller-process.js";

const apiVersion = "kro.run/v1alpha1";
const DOWNTIME_MS = 10_000;

describe("controller across a kube-apiserver restart", { timeout: 600_000 }, () => {
  it("converges an instance created right after /readyz, idle and busy", async (t) => {
    const cluster = await startLocalCluster({ mode: "minimal", env: process.env });
    t.after(async () => {
      await cluster.stop();
    });
    const client = await createKubeClient({ kubeconfig: cluster.kubeconfigPath, qps: 0 });
    t.after(() => {
      client.close();
    });
    const suffix = letterSuffix();
    const kind = `Recovery${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}`;
    const namespace = `recovery-${suffix}`;
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const controller = await startControllerProcess(cluster.kubeconfigPath, ["--log-level", "info"]);
    t.after(async () => {
      await controller.kill();
    });
    await eventually(
      () =>
        client.apply(
          {
            apiVersion,
            kind: "ResourceGraphDefinition",
            metadata: { name: `recovery-${suffix}` },
            spec: {
              schema: { apiVersion: "v1alpha1", kind, spec: { v: "string | default=x" } },
              resources: [
                {
                  id: "first",
                  template: {
                    apiVersion: "v1",
                    kind: "ConfigMap",
                    metadata: { name: "${schema.metadata.name}-first" },
                    data: { v: "${schema.spec.v}" },
                  },
                },
                {
                  id: "second",
                  template: {
                    apiVersion: "v1",
                    kind: "ConfigMap",
                    metadata: { name: "${schema.metadata.name}-second" },
                    data: { v: "${first.data.v}" },
                  },
                },
              ],
            },
          },
          { fieldManager: "recovery-test", force: true },
        ),
      { timeout: 60_000 },
    );
    await eventually(
      async () => {
        await client.list(apiVersion, kind, { namespace, limit: 1 });
      },
      { timeout: 60_000 },
    );

    const create = (name: string) =>
      client.create({ apiVersion, kind, metadata: { name, namespace }, spec: { v: name } });
    const activeWithin = async (names: readonly string[], timeout: number) => {
      await eventually(
        async () => {
          for (const name of names) {
            const instance = await client.get({ apiVersion, kind, namespace, name });
            assert.equal(
              (instance.status as { state?: string } | undefined)?.state,
              "ACTIVE",
              `${name}: ${JSON.stringify(instance.status)}`,
            );
          }
        },
        { timeout, interval: 25 },
      );
    };
    const converged = Array.from({ length: 20 }, (_, i) => `base-${i}`);
    await Promise.all(converged.map(create));
    await activeWithin(converged, 60_000);
    // A clean start on an empty cluster (it installs its own CRDs and policies) warns of nothing:
    // a watch of its RGD kind started before discovery served it used to fail, with a warning.
    const warnings = controller
      .output()
      .split("\n")
      .filter((line) => /\bWARN\b|watch failed/.test(line));
    assert.deepEqual(warnings, [], "a clean start warns of nothing");

    const figures: string[] = [];
    for (const phase of ["idle", "busy"] as const) {
      const inFlight = phase === "busy" ? Array.from({ length: 20 }, (_, i) => `busy-${i}`) : [];
      await Promise.all(inFlight.map(create));
      await cluster.restartComponent("kube-apiserver", { downtimeMs: DOWNTIME_MS });
      // restartComponent returns once /readyz answers 200: the clock starts here.
      const readyAt = performance.now();
      await create(`after-${phase}`);
      await activeWithin([`after-${phase}`], 60_000);
      const took = Math.round(performance.now() - readyAt);
      figures.push(`${phase}: ${took} ms`);
      t.diagnostic(`${phase}: instance created after /readyz ACTIVE in ${took} ms`);
      await activeWithin(inFlight, 60_000);
    }
    assert.ok(controller.alive(), "the controller rode out both restarts");
    console.log(
      `API-server restart (${DOWNTIME_MS} ms down): new instance ACTIVE after /readyz — ${figures.join(", ")}`,
    );
  });
});
