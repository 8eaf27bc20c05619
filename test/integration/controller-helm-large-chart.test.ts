/**
 * A chart too large to store as text: a GitOps server's shape whose CRD templates
 * make ~2.9 MB. Imported, its RGD is under 1 MiB (large templates gzipped), the real API server
 * stores it (as text it would exceed the 2 MiB request limit), the controller compiles it from the
 * stored object, and an instance becomes Ready with what the chart renders.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { importHelmChart } from "../../src/helm/index.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";
import { largeChartFiles } from "../unit-support/helm/large-chart.js";

const enc = new TextEncoder();

describe("a large chart on the cluster", { timeout: 240_000 }, () => {
  let tc: TestController;
  const kind = `Ops${letterSuffix()}App`;
  const group = "helmlarge.test.kro.run";
  let rgdName = "";

  before(async () => {
    tc = await startTestController();
  });
  after(async () => {
    if (rgdName !== "") await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
  });

  it("is stored, served and reconciled: the RGD carries its large templates gzipped", async (t) => {
    const files = new Map(Object.entries(largeChartFiles()).map(([k, v]) => [k, enc.encode(v)]));
    const imported = importHelmChart(files, { releaseName: "rel", kind, group });
    const rgd = imported.rgd as {
      metadata: { name: string; labels?: Record<string, string> };
      spec: { helm: { templatesGzip?: object } };
    };
    rgd.metadata = { ...rgd.metadata, labels: { [tc.label.key]: tc.label.value } };
    rgdName = rgd.metadata.name;
    const bytes = Buffer.byteLength(JSON.stringify(rgd));
    assert.ok(
      bytes < 1024 * 1024 && Object.keys(rgd.spec.helm.templatesGzip ?? {}).length === 8,
      `RGD ${bytes} bytes, gzipped templates`,
    );
    await kubectl(["apply", "-f", "-"], JSON.stringify(imported.crd));
    // Server-side: a client-side kubectl apply would copy the RGD into an annotation (256 KiB at most).
    await kubectl(["apply", "--server-side", "--field-manager", "kro-test", "-f", "-"], JSON.stringify(rgd));
    const stored = await kubectlJson<{ spec: { helm: { templatesGzip?: Record<string, string> } } }>([
      "get",
      "rgd",
      rgdName,
    ]);
    assert.equal(
      Object.keys(stored.spec.helm.templatesGzip ?? {}).length,
      8,
      "the API server kept the gzipped templates",
    );
    await waitRgdActive(rgdName);

    const ns = await testNamespace(t, "helm-large");
    const plural = `${kind.toLowerCase()}s.${group}`;
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        ...imported.instance,
        metadata: { name: "rel", namespace: ns },
        spec: { message: "from a large chart" },
      }),
    );
    await eventually(
      async () => {
        const cm = await kubectlJson<{ data: Record<string, string> }>(["get", "configmap", "rel", "-n", ns]);
        assert.deepEqual(cm.data, { message: "from a large chart" });
        const app = await kubectlJson<{ status?: { state?: string; conditions?: { type: string; status: string }[] } }>(
          ["get", plural, "rel", "-n", ns],
        );
        assert.equal(
          app.status?.conditions?.find((c) => c.type === "Ready")?.status,
          "True",
          JSON.stringify(app.status),
        );
      },
      { timeout: 120_000 },
    );
    // The CRD templates are gated off (crds.install: false): nothing of theirs was created.
    const crds = await kubectl(["get", "crd", "-o", "name"]);
    assert.ok(!crds.includes("example.io"), "no CRD of the chart's templates");
  });
});
