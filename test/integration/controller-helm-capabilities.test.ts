/**
 * A Bitnami-style chart whose optional kinds take their apiVersion from capabilities helpers
 * (`apiVersion: {{ include "capabilities.policy.apiVersion" . }}`), turned on by an instance: the
 * controller renders them with the cluster's capabilities, as `helm install` does — the
 * PodDisruptionBudget and HorizontalPodAutoscaler are applied, the ServiceMonitor is not, as the
 * shared control plane serves no monitoring.coreos.com (its template asks
 * `.Capabilities.APIVersions.Has`), and the instance is Ready.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { REPO_ROOT } from "../../src/deploy/index.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";
import { installImportedChart, type InstalledChart } from "../support/imported-chart.js";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";

interface App {
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}
interface Named {
  apiVersion: string;
  metadata: { name: string };
}

describe("an imported chart with capabilities helpers on the cluster", { timeout: 300_000 }, () => {
  let tc: TestController;
  let installed: InstalledChart | undefined;
  const kind = `Caps${letterSuffix()}App`;
  const group = "capabilities.test.kro.run";
  const plural = `${kind.toLowerCase()}s.${group}`;

  before(async () => {
    tc = await startTestController();
    installed = await installImportedChart(tc, path.join(REPO_ROOT, "test/fixtures/helm/capabilities"), {
      kind,
      group,
    });
  });
  after(async () => {
    await installed?.remove();
    await tc.stop();
  });

  it("applies the kinds an instance turns on, at the apiVersions the cluster's capabilities give", async (t) => {
    await waitRgdActive(installed?.rgdName ?? "");
    const ns = await testNamespace(t, "helm-capabilities");
    const children = (installed?.imported.rgd as { spec: { childResources: { kind: string; apiVersion: string }[] } })
      .spec.childResources;
    assert.deepEqual(Object.fromEntries(children.map((c) => [c.kind, c.apiVersion])), {
      Deployment: "apps/v1",
      PodDisruptionBudget: "policy/v1",
      HorizontalPodAutoscaler: "autoscaling/v2",
      ServiceMonitor: "monitoring.coreos.com/v1alpha1",
    });
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: `${group}/v1alpha1`,
        kind,
        metadata: { name: "rel", namespace: ns },
        spec: { pdb: { create: true }, autoscaling: { enabled: true }, metrics: { serviceMonitor: { enabled: true } } },
      }),
    );
    await eventually(
      async () => {
        const live = await kubectlJson<App>(["get", plural, "rel", "-n", ns]);
        const ready = live.status?.conditions?.find((c) => c.type === "Ready");
        assert.equal(ready?.status, "True", JSON.stringify(live.status));
        const pdb = await kubectlJson<Named>(["get", "poddisruptionbudgets.v1.policy", "rel-capabilities", "-n", ns]);
        assert.equal(pdb.apiVersion, "policy/v1");
        const hpa = await kubectlJson<Named>([
          "get",
          "horizontalpodautoscalers.v2.autoscaling",
          "rel-capabilities",
          "-n",
          ns,
        ]);
        assert.equal(hpa.apiVersion, "autoscaling/v2");
      },
      { timeout: 120_000 },
    );
  });
});
