/**
 * An imported chart on the real control plane: `helm create`'s chart imported, its CRD and RGD
 * applied, an instance created. The controller creates what `helm template` renders (same
 * objects, same content apart from the documented differences), the instance becomes Ready like
 * `helm install --wait`, a values change rolls out, a template that stops rendering an object
 * (autoscaling off → no HPA) gets it pruned, and deleting the instance removes everything.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { helm } from "../support/helm.js";
import { helmObjects, normalize, objectKey } from "../support/helm-import.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";
import { installImportedChart, type InstalledChart } from "../support/imported-chart.js";
import { expectAbsent, kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";
import type { HelmImportResult } from "../../src/helm/index.js";

interface Listed {
  items: Record<string, unknown>[];
}

describe("an imported Helm chart on the cluster", { timeout: 300_000 }, () => {
  let tc: TestController;
  let scratch: string;
  let imported: HelmImportResult;
  let installed: InstalledChart | undefined;
  let chart: string;
  const kind = `Web${letterSuffix()}App`;
  const group = "helmimport.test.kro.run";
  const plural = `${kind.toLowerCase()}s.${group}`;

  before(async () => {
    tc = await startTestController();
    scratch = await mkdtemp(path.join(os.tmpdir(), "kro-helm-ctl-"));
    chart = path.join(scratch, "web");
    await helm(["create", chart]);
    installed = await installImportedChart(tc, chart, { kind, group });
    imported = installed.imported;
  });
  after(async () => {
    await installed?.remove();
    await tc.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("applies what helm template renders, becomes Ready, rolls out a change, prunes, and deletes", async (t) => {
    const rgdName = installed?.rgdName ?? "";
    await waitRgdActive(rgdName);
    const ns = await testNamespace(t, "helm-import");
    const instance = { ...imported.instance, metadata: { name: "rel", namespace: ns }, spec: { replicaCount: 2 } };
    await kubectl(["apply", "-f", "-"], JSON.stringify(instance));

    const expected = await helmObjects(chart, { replicaCount: 2 }, ["-n", ns]);
    await eventually(
      async () => {
        for (const [key, object] of expected) {
          const [kindName, name] = [object.kind, String(object.metadata.name)];
          const live = await kubectlJson(["get", kindName, name, "-n", ns]);
          const { metadata, ...rest } = normalize(live, ns);
          // The live object carries server-side fields; compare what the chart sets.
          for (const [field, value] of Object.entries(object)) {
            if (field === "metadata") {
              assert.deepEqual(
                { name: metadata.name, labels: metadata.labels },
                { name: object.metadata.name, labels: object.metadata.labels },
                key,
              );
            } else if (field !== "spec" || kindName !== "Service")
              assert.deepEqual(subset(rest[field], value), value, `${key} ${field}`);
          }
        }
      },
      { timeout: 60_000 },
    );

    await eventually(
      async () => {
        const app = await kubectlJson<{ status?: { state?: string; conditions?: { type: string; status: string }[] } }>(
          ["get", plural, "rel", "-n", ns],
        );
        assert.equal(app.status?.state, "ACTIVE", JSON.stringify(app.status));
        assert.equal(app.status.conditions?.find((c) => c.type === "Ready")?.status, "True");
      },
      { timeout: 120_000 },
    );

    await kubectl([
      "patch",
      plural,
      "rel",
      "-n",
      ns,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { replicaCount: 3, autoscaling: { enabled: true, maxReplicas: 4 } } }),
    ]);
    await eventually(
      async () => {
        const hpa = await kubectlJson<{ spec: { maxReplicas: number } }>(["get", "hpa", "rel-web", "-n", ns]);
        assert.equal(hpa.spec.maxReplicas, 4);
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
      JSON.stringify({ spec: { autoscaling: { enabled: false } } }),
    ]);
    await eventually(
      async () => {
        await expectAbsent(["hpa", "rel-web", "-n", ns]);
        assert.equal(
          (await kubectlJson<{ spec: { replicas: number } }>(["get", "deployment", "rel-web", "-n", ns])).spec.replicas,
          3,
        );
      },
      { timeout: 60_000 },
    );

    await kubectl(["delete", plural, "rel", "-n", ns, "--wait=false"]);
    await eventually(
      async () => {
        const left = await kubectlJson<Listed>([
          "get",
          "deployments,services,serviceaccounts",
          "-n",
          ns,
          "-l",
          "app.kubernetes.io/instance=rel",
        ]);
        assert.deepEqual(
          left.items.map((o) => objectKey(normalize(o, ns))),
          [],
        );
      },
      { timeout: 60_000 },
    );
  });

  it("a value set to null drops the chart's default, as helm does: the probes go, the stored instance keeps the null", async (t) => {
    const rgdName = installed?.rgdName ?? "";
    await waitRgdActive(rgdName);
    const ns = await testNamespace(t, "helm-null");
    const values = { livenessProbe: null, readinessProbe: null };
    // `kubectl create` sends the body as written; the imported schema makes defaulted fields
    // nullable, so the API server keeps the nulls instead of putting the defaults back.
    await kubectl(
      ["create", "-f", "-"],
      JSON.stringify({ ...imported.instance, metadata: { name: "bare", namespace: ns }, spec: values }),
    );
    const stored = await kubectlJson<{ spec: Record<string, unknown> }>(["get", plural, "bare", "-n", ns]);
    assert.equal(stored.spec.livenessProbe, null);
    const expected = [...(await helmObjects(chart, values, ["-n", ns])).values()].find(
      (o) => o.kind === "Deployment",
    ) as unknown as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } } | undefined;
    assert.ok(expected !== undefined, "helm renders the Deployment (as release rel)");
    assert.equal(expected.spec.template.spec.containers[0]?.livenessProbe, undefined, "helm drops the probe");
    await eventually(
      async () => {
        const live = await kubectlJson<{ spec: { template: { spec: { containers: Record<string, unknown>[] } } } }>([
          "get",
          "deployment",
          "bare-web",
          "-n",
          ns,
        ]);
        const container = live.spec.template.spec.containers[0] ?? {};
        assert.equal(container.image, expected.spec.template.spec.containers[0]?.image);
        assert.deepEqual([container.livenessProbe, container.readinessProbe], [undefined, undefined]);
      },
      { timeout: 60_000 },
    );
    await kubectl(["delete", plural, "bare", "-n", ns, "--wait=false"]);
  });
});

/** The part of `live` that `wanted` describes (server defaults left out), for structural comparison. */
function subset(live: unknown, wanted: unknown): unknown {
  if (Array.isArray(wanted) && Array.isArray(live)) return wanted.map((w, i) => subset(live[i], w));
  if (
    typeof wanted === "object" &&
    wanted !== null &&
    typeof live === "object" &&
    live !== null &&
    !Array.isArray(live)
  ) {
    return Object.fromEntries(
      Object.keys(wanted).map((k) => [
        k,
        subset((live as Record<string, unknown>)[k], (wanted as Record<string, unknown>)[k]),
      ]),
    );
  }
  return live;
}
