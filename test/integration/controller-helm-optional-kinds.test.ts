/**
 * Kinds a chart's values turn off, on a cluster that serves no monitoring or certificate CRDs (the
 * shared test control plane): an imported chart whose ServiceMonitor and Certificate sit behind
 * flags that are off converges like `helm install` does — those kinds are never watched or waited
 * on. Turning one on gives a condition naming the kind and the template while the rest still
 * converges; turning it off again makes the instance Ready again.
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
  status?: { state?: string; conditions?: { type: string; status: string; message?: string }[] };
}
const ready = (app: App) => app.status?.conditions?.find((c) => c.type === "Ready");

describe("an imported chart with optional kinds the cluster does not serve", { timeout: 300_000 }, () => {
  let tc: TestController;
  let installed: InstalledChart | undefined;
  const kind = `Opt${letterSuffix()}App`;
  const group = "optional.test.kro.run";
  const plural = `${kind.toLowerCase()}s.${group}`;

  before(async () => {
    tc = await startTestController();
    installed = await installImportedChart(tc, path.join(REPO_ROOT, "test/fixtures/helm/optional-kinds"), {
      kind,
      group,
    });
  });
  after(async () => {
    await installed?.remove();
    await tc.stop();
  });

  it("converges with the flags off, names the kind when one is turned on, and recovers when it is off again", async (t) => {
    await waitRgdActive(installed?.rgdName ?? "");
    const ns = await testNamespace(t, "helm-optional");
    const app = () => kubectlJson<App>(["get", plural, "rel", "-n", ns]);
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: `${group}/v1alpha1`, kind, metadata: { name: "rel", namespace: ns }, spec: {} }),
    );
    await eventually(
      async () => {
        const live = await app();
        assert.equal(live.status?.state, "ACTIVE", JSON.stringify(live.status));
        assert.equal(ready(live)?.status, "True");
      },
      { timeout: 90_000 },
    );
    assert.equal(
      (await kubectlJson<{ data: Record<string, string> }>(["get", "configmap", "rel-config", "-n", ns])).data.message,
      "hello",
    );

    await kubectl([
      "patch",
      plural,
      "rel",
      "-n",
      ns,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { message: "changed", serviceMonitor: { enabled: true } } }),
    ]);
    await eventually(
      async () => {
        const live = await app();
        assert.equal(ready(live)?.status, "False", JSON.stringify(live.status));
        assert.match(ready(live)?.message ?? "", /ServiceMonitor \(monitoring\.coreos\.com\/v1\)/);
        assert.doesNotMatch(ready(live)?.message ?? "", /Certificate/, "the kind still turned off is not named");
      },
      { timeout: 60_000 },
    );
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ data: Record<string, string> }>(["get", "configmap", "rel-config", "-n", ns])).data
            .message,
          "changed",
          "the rest converges",
        );
      },
      { timeout: 60_000 },
    );

    await kubectl([
      "patch",
      plural,
      "rel",
      "-n",
      ns,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { serviceMonitor: { enabled: false } } }),
    ]);
    await eventually(
      async () => {
        const live = await app();
        assert.equal(live.status?.state, "ACTIVE", JSON.stringify(live.status));
        assert.equal(ready(live)?.status, "True");
      },
      { timeout: 60_000 },
    );
  });
});
