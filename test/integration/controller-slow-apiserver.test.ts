/**
 * The controller behind a slow API server (every round trip 80 ms longer, through a loopback
 * proxy): with a backlog of new instances it raises how many it reconciles at once above its
 * floor of 4 — the request budget is used when latency, not the server's capacity, is what
 * holds the work — stays under its ceiling, and every instance converges right, in about one
 * pass each. The rules of the limit are unit-tested step by step (loop/concurrency-limit.test.ts);
 * this proves the wiring on the real API server: the client's answers, the queue's backlog and
 * the slots in the reconcile loop.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ControllerMetrics } from "../../src/observability/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import {
  waitRgdActive,
  rgdHeader,
  letterSuffix,
  startTestController,
  type TestController,
} from "../support/controller.js";

const INSTANCES = 60;
const MAX_WORKERS = 12;
const suffix = letterSuffix();
const kind = `Slow${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `slow-${suffix}`;
const namespace = `slow-${suffix}`;
let tc: TestController;
let proxy: TcpProxy;
const metrics = new ControllerMetrics({ processMetrics: false });

const rgdYaml = () => `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      value: string | default="v0"
    status:
      value: \${third.data.value}
  resources:
    - id: first
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-first" }
        data: { value: "\${schema.spec.value}" }
    - id: second
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-second" }
        data: { value: "\${first.data.value}" }
    - id: third
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-third" }
        data: { value: "\${second.data.value}" }
`;

async function gauge(name: string): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values[0]?.value ?? NaN;
}

describe("a slow API server", { timeout: 300_000 }, () => {
  before(async () => {
    proxy = await TcpProxy.start(testCluster().server);
    proxy.setLatency(80);
    tc = await startTestController({
      requeueIntervalMs: 600_000,
      server: proxy.url(),
      maxWorkers: MAX_WORKERS,
      metrics,
    });
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgdYaml());
    await waitRgdActive(rgdName);
  });
  after(async () => {
    await tc.stop();
    await proxy.close();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it(`${INSTANCES} new instances: more reconcile at once than the floor of 4, never more than the ceiling, all converge right`, async () => {
    assert.equal(await gauge("kro_instance_concurrency_limit"), 4, "starts at --workers");
    const limits: number[] = [];
    const sampler = setInterval(() => {
      void gauge("kro_instance_concurrency_limit").then((n) => limits.push(n));
    }, 100);
    const start = tc.evaluated.length;
    const names = Array.from({ length: INSTANCES }, (_, i) => `i-${i}`);
    await kubectl(
      ["apply", "-f", "-"],
      names
        .map(
          (name) =>
            `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: { value: "${name}" }\n`,
        )
        .join("---\n"),
    );
    try {
      await eventually(
        async () => {
          const list = await kubectlJson<{ items: { metadata: { name: string }; status?: { value?: string } }[] }>([
            "get",
            plural,
            "-n",
            namespace,
          ]);
          const behind = list.items.filter((o) => o.status?.value !== o.metadata.name);
          assert.equal(list.items.length, INSTANCES);
          assert.equal(behind.length, 0, `${behind.length} behind`);
        },
        { timeout: 240_000, interval: 500 },
      );
    } finally {
      clearInterval(sampler);
    }
    const peak = Math.max(...limits);
    assert.ok(peak > 4, `the limit grew above the floor (samples: ${limits.join(",")})`);
    assert.ok(peak <= MAX_WORKERS, `the limit stayed within the ceiling (peak ${peak})`);
    const grew = (await metrics.registry.getMetricsAsJSON())
      .find((m) => m.name === "kro_instance_concurrency_steps_total")
      ?.values.find((v) => v.labels.reason === "grew")?.value;
    assert.ok(Number(grew) > 0);
    const passes = tc.evaluated.slice(start).filter((e) => e.startsWith(`${namespace}/i-`)).length;
    assert.ok(passes <= INSTANCES * 1.5, `${passes} passes for ${INSTANCES} instances`);
  });
});
