/**
 * One tenant cannot stall the others: an instance carrying a catastrophic-backtracking pattern
 * (`^(a+)+$` against "aaa…a!") and a string doubled towards gigabytes gets an error condition,
 * while 20 other instances converge, and the controller process answers /healthz throughout.
 * Their time against a quiet run's is printed, not asserted: it depends on the machine's load.
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
const kind = `Tenant${suffix}App`;
const plural = `${kind.toLowerCase()}s`;
const namespace = `hostile-${suffix}`;
const rgdName = `hostile-${suffix}`;
const selector = `kro-ts.test/controller=hostile-${suffix}`;
const COUNT = 20;

/** `levels` doublings of the value, only when the instance asks for them. */
function doubling(levels: number): string {
  let expr = `v${levels}`;
  for (let i = levels; i > 0; i--) expr = `cel.bind(v${i}, v${i - 1} + v${i - 1}, ${expr})`;
  return `cel.bind(v0, schema.spec.value, ${expr})`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function instanceYaml(name: string, spec: string): string {
  return `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: ${spec}\n`;
}

/** Creates the benign instances `prefix-0..COUNT-1` at once and returns the ms until all are ACTIVE. */
async function timeToReady(prefix: string, extra = ""): Promise<number> {
  const names = Array.from({ length: COUNT }, (_, i) => `${prefix}-${i}`);
  const started = performance.now();
  await kubectl(
    ["apply", "-f", "-"],
    [extra, ...names.map((n) => instanceYaml(n, "{ value: fine }"))].filter((d) => d !== "").join("---\n"),
  );
  await eventually(
    async () => {
      const list = await kubectlJson<{ items: Instance[] }>(["get", plural, "-n", namespace]);
      const active = list.items.filter((i) => names.includes(i.metadata.name) && i.status?.state === "ACTIVE").length;
      assert.equal(active, COUNT);
    },
    { timeout: 120_000, interval: 100 },
  );
  return performance.now() - started;
}

describe("a hostile instance does not stall the others", { timeout: 400_000 }, () => {
  let controller: ControllerProcess;
  let healthPort = 0;
  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    // The controller installs the RGD CRD (a fresh cluster may not have it yet).
    healthPort = await freePort();
    controller = await startControllerProcess(testCluster().kubeconfig, [
      "--rgd-selector",
      selector,
      "--health-probe-bind-address",
      `127.0.0.1:${healthPort}`,
      "--log-level",
      "info",
    ]);
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { kro-ts.test/controller: hostile-${suffix} }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      value: string | default=fine
      pattern: string | default="^[a-z]+$"
      levels: integer | default=0
  resources:
    - id: box
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data:
          matched: '\${schema.spec.value.matches(schema.spec.pattern) ? "yes" : "no"}'
          size: '\${schema.spec.levels > 0 ? string(size(${doubling(30)})) : "small"}'
`,
    );
    await eventually(
      async () => {
        const rgd = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName]);
        assert.equal(rgd.status?.state, "Active", JSON.stringify(rgd.status));
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await controller.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("keeps the others converging and /healthz answering", async () => {
    const quiet = await timeToReady("quiet");

    const probes: number[] = [];
    const failures: string[] = [];
    const probing = { on: true };
    const prober = (async () => {
      while (probing.on) {
        const sent = performance.now();
        try {
          // A loop blocked by an attack would not answer for hours (they are unbounded); the
          // timeout only ends the wait for a probe that got no answer at all.
          const res = await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(10_000) });
          if (res.status !== 200) failures.push(`status ${res.status}`);
        } catch (e) {
          failures.push(e instanceof Error ? e.message : String(e));
        }
        probes.push(performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const hostile = instanceYaml("hostile", `{ value: "${"a".repeat(40)}!", pattern: "^(a+)+$", levels: 1 }`);
    const busy = await timeToReady("busy", hostile);
    // Let the hostile instance be retried a few times while we keep probing.
    await eventually(
      async () => {
        const h = await kubectlJson<Instance>(["get", plural, "hostile", "-n", namespace]);
        assert.notEqual(h.status?.state, "ACTIVE");
        const messages = (h.status?.conditions ?? []).map((c) => c.message ?? "").join(" | ");
        assert.match(messages, /cost limit|budget|time limit/, messages);
      },
      { timeout: 60_000 },
    );
    probing.on = false;
    await prober;

    const ratio = busy / Math.max(quiet, 1000);
    const worstProbe = Math.max(...probes);
    console.log(
      `quiet ${Math.round(quiet)} ms, with a hostile tenant ${Math.round(busy)} ms (ratio ${ratio.toFixed(2)}); ${probes.length} probes, worst ${Math.round(worstProbe)} ms`,
    );
    assert.deepEqual(failures, [], "every /healthz probe answered 200");
    assert.ok(probes.length >= 5, "probed throughout");
    assert.ok(controller.alive(), controller.output().slice(-2000));
  });
});
