/**
 * A large chart converges with default settings on a busy node. The shape of a GitOps server's
 * chart with its CRDs installed as templates (8 CRDs, about 3.8 MB of YAML), imported and
 * reconciled by a controller process with no tuning flags while it is starved on purpose —
 * stopped (SIGSTOP) for 150 ms after every 30 ms it runs, about 6× slower in wall time. Deadlines
 * count the controller's own work (its threads' CPU time), so the instance becomes Ready with
 * every CRD Established, and no pass or render is cut short on the way.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { importHelmChart } from "../../src/helm/index.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { starve } from "../support/starve.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { LARGE_CHART_CRD_KINDS, largeChartFiles } from "../unit-support/helm/large-chart.js";

const enc = new TextEncoder();
const suffix = letterSuffix();
const kind = `Busy${suffix}App`;
const group = "helmbusy.test.kro.run";
/** The chart's CRDs in a group of this test's own, so parallel tests never see them. */
const crdGroup = `crds-${suffix}.example.io`;
const namespace = `helm-busy-${suffix}`;
const selector = `kro-ts.test/controller=helm-busy-${suffix}`;

describe("a large chart on a busy node", { timeout: 540_000 }, () => {
  let controller: ControllerProcess;
  let rgdName = "";

  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    controller = await startControllerProcess(testCluster().kubeconfig, [
      "--rgd-selector",
      selector,
      "--log-level",
      "info",
    ]);
  });
  after(async () => {
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    for (const k of LARGE_CHART_CRD_KINDS)
      await kubectl(["delete", "crd", `${k.toLowerCase()}s.${crdGroup}`, "--ignore-not-found", "--wait=false"]);
    if (rgdName !== "") await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]);
    await controller.stop();
  });

  it("becomes Ready with default flags, every CRD Established, no deadline fired", async () => {
    const files = new Map(
      Object.entries(largeChartFiles()).map(([k, v]) => [k, enc.encode(v.replaceAll("example.io", crdGroup))]),
    );
    const imported = importHelmChart(files, { releaseName: "rel", kind, group });
    const rgd = imported.rgd as { metadata: { name: string; labels?: Record<string, string> } };
    rgd.metadata = { ...rgd.metadata, labels: { "kro-ts.test/controller": `helm-busy-${suffix}` } };
    rgdName = rgd.metadata.name;
    await kubectl(["apply", "-f", "-"], JSON.stringify(imported.crd));
    await kubectl(["apply", "--server-side", "--field-manager", "kro-test", "-f", "-"], JSON.stringify(rgd));
    await eventually(
      async () => {
        const live = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName]);
        assert.equal(live.status?.state, "Active", JSON.stringify(live.status));
      },
      { timeout: 60_000 },
    );

    const plural = `${kind.toLowerCase()}s.${group}`;
    const starving = starve(controller.pid, 30, 150);
    try {
      await kubectl(
        ["apply", "-f", "-"],
        JSON.stringify({
          ...imported.instance,
          metadata: { name: "rel", namespace },
          spec: { crds: { install: true }, message: "busy" },
        }),
      );
      await eventually(
        async () => {
          const app = await kubectlJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
            "get",
            plural,
            "rel",
            "-n",
            namespace,
          ]);
          assert.equal(
            app.status?.conditions?.find((c) => c.type === "Ready")?.status,
            "True",
            JSON.stringify(app.status),
          );
        },
        { timeout: 420_000, interval: 1_000 },
      );
    } finally {
      await starving.stop();
    }
    for (const k of LARGE_CHART_CRD_KINDS) {
      const crd = await kubectlJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
        "get",
        "crd",
        `${k.toLowerCase()}s.${crdGroup}`,
      ]);
      assert.equal(crd.status?.conditions?.find((c) => c.type === "Established")?.status, "True", k);
    }
    assert.doesNotMatch(controller.output(), /time limit/, "no pass or render was cut short");
    assert.ok(controller.alive(), controller.output().slice(-2000));
  });
});
