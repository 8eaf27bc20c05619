/**
 * A busy node does not turn a healthy instance into ERROR: the evaluation deadline counts the
 * controller's own work, not time other processes had the CPU. The controller runs with a 400 ms
 * evaluation budget and is starved on purpose — stopped (SIGSTOP) for 250 ms after every 15 ms it
 * runs — while it reconciles an RGD whose pass takes about 30–100 ms of work (the first, before the
 * JIT warms up, the most; a loaded CI machine adds to it): every pass spans several pauses — about
 * 0.5–2 s of wall time, over the budget, so a wall-clock deadline fails it — while the work fits
 * the budget several times over. The instance must become ACTIVE with no time-limit error on the way.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { starve } from "../support/starve.js";

interface Instance {
  status?: { state?: string; conditions?: { type: string; status: string; message?: string }[] };
}

const suffix = letterSuffix();
const kind = `Starved${suffix}App`;
const plural = `${kind.toLowerCase()}s`;
const namespace = `starved-${suffix}`;
const rgdName = `starved-${suffix}`;
const selector = `kro-ts.test/controller=starved-${suffix}`;
/** ConfigMaps, each computing over the instance's list of numbers: 30–100 ms of work per pass on this machine. */
const NODES = 40;

function rgdYaml(): string {
  const resources = Array.from(
    { length: NODES },
    (_, i) => `    - id: part${i}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-${i}" }
        data:
          sum: '\${string(schema.spec.numbers.map(n, n * ${i + 1}).filter(n, n % 3 != 0).size())}'
          joined: '\${schema.spec.numbers.map(n, string(n + ${i})).join(",").size() > 0 ? "yes" : "no"}'`,
  ).join("\n");
  return `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { kro-ts.test/controller: starved-${suffix} }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      numbers: "[]integer"
  resources:
${resources}
`;
}

describe("a starved controller", { timeout: 300_000 }, () => {
  let controller: ControllerProcess;
  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    controller = await startControllerProcess(testCluster().kubeconfig, [
      "--rgd-selector",
      selector,
      "--evaluation-timeout",
      "400ms",
      "--log-level",
      "info",
    ]);
    await kubectl(["apply", "-f", "-"], rgdYaml());
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

  it("converges within its work budget although each pass takes many times the budget in wall time", async () => {
    const numbers = Array.from({ length: 200 }, (_, i) => i).join(", ");
    const starving = starve(controller.pid, 15, 250);
    try {
      await kubectl(
        ["apply", "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: busy, namespace: ${namespace} }\nspec: { numbers: [${numbers}] }\n`,
      );
      await eventually(
        async () => {
          const instance = await kubectlJson<Instance>(["get", plural, "busy", "-n", namespace]);
          assert.equal(instance.status?.state, "ACTIVE", JSON.stringify(instance.status));
        },
        { timeout: 120_000, interval: 500 },
      );
    } finally {
      await starving.stop();
    }
    assert.doesNotMatch(controller.output(), /time limit/, "no pass was cut short");
    assert.ok(controller.alive(), controller.output().slice(-2000));
  });
});
