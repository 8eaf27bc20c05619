// GitOps health of instances, judged by the real tools' logic: sigs.k8s.io/cli-utils kstatus (the
// Go module Flux uses) and the Argo CD Lua health check from docs/gitops/, on instance statuses
// the real controller wrote — in progress, Ready, right after a spec change (the status is for the
// old generation: not Ready), an apply error, and suspended.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { argoHealth, kstatus } from "../support/kstatus.js";

const letters = letterSuffix();
const kind = `Health${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const rgdName = `health-${letters}`;

const rgdSpec = `
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      paused: boolean | default=false
      port: integer | default=80
  resources:
    - id: deploy
      readyWhen:
        - \${deploy.status.?availableReplicas.orValue(0) > 0}
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: "\${schema.metadata.name}" }
        spec:
          paused: \${schema.spec.paused}
          replicas: 1
          selector: { matchLabels: { app: "\${schema.metadata.name}" } }
          template:
            metadata: { labels: { app: "\${schema.metadata.name}" } }
            spec: { containers: [{ name: web, image: "nginx:1.27" }] }
    - id: svc
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${schema.metadata.name}" }
        spec: { selector: { app: "\${schema.metadata.name}" }, ports: [{ port: "\${schema.spec.port}" }] }
`;

type Instance = {
  metadata: { generation: number };
  status?: {
    state?: string;
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason?: string }[];
  };
};

async function judged(object: unknown): Promise<[string, string]> {
  const [verdict] = await kstatus([object]);
  assert.equal(verdict?.error, undefined);
  return [verdict?.status ?? "", (await argoHealth(object)).status];
}

describe("GitOps health: kstatus and the Argo CD health check on real instance statuses", { timeout: 240_000 }, () => {
  let tc: TestController;
  before(async () => {
    tc = await startTestController();
    await kubectl(["apply", "-f", "-"], `${rgdHeader(tc, rgdName)}${rgdSpec}`);
    await waitRgdActive(rgdName);
  });
  after(async () => {
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
  });

  const get = (ns: string, name: string) => kubectlJson<Instance>(["get", kind.toLowerCase(), name, "-n", ns]);

  it("in progress, then Ready, then not Ready for a new generation until it is observed and ready again", async (t) => {
    const ns = await testNamespace(t, "health");
    await kubectl(
      ["apply", "-n", ns, "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: app }\nspec: { paused: true }\n`,
    );
    const progressing = await eventually(
      async () => {
        const o = await get(ns, "app");
        assert.equal(o.status?.state, "IN_PROGRESS");
        assert.equal(o.status.observedGeneration, 1);
        return o;
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(await judged(progressing), ["InProgress", "Progressing"]);
    assert.equal(progressing.status?.conditions?.find((c) => c.type === "Reconciling")?.status, "True");

    await kubectl(["patch", kind.toLowerCase(), "app", "-n", ns, "--type=merge", "-p", '{"spec":{"paused":false}}']);
    const ready = await eventually(
      async () => {
        const o = await get(ns, "app");
        assert.equal(o.status?.conditions?.find((c) => c.type === "Ready")?.status, "True", JSON.stringify(o.status));
        return o;
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(await judged(ready), ["Current", "Healthy"]);
    assert.equal(ready.status?.observedGeneration, ready.metadata.generation);
    assert.equal(
      ready.status.conditions?.some((c) => c.type === "Reconciling" || c.type === "Stalled"),
      false,
    );

    // The patch's own response: the new generation with the status written for the old one. Ready
    // still says True there, and neither judge may take it for the new spec.
    const changed = JSON.parse(
      await kubectl([
        "patch",
        kind.toLowerCase(),
        "app",
        "-n",
        ns,
        "--type=merge",
        "-p",
        '{"spec":{"paused":true}}',
        "-o",
        "json",
      ]),
    ) as Instance;
    assert.equal(changed.metadata.generation, ready.metadata.generation + 1);
    assert.equal(changed.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
    assert.deepEqual(await judged(changed), ["InProgress", "Progressing"]);
    // Observed by the controller: the new generation is ready too (its pods already run), and both judges follow.
    const settled = await eventually(
      async () => {
        const o = await get(ns, "app");
        assert.equal(o.status?.observedGeneration, changed.metadata.generation);
        assert.equal(o.status.conditions?.find((c) => c.type === "Ready")?.status, "True");
        return o;
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(await judged(settled), ["Current", "Healthy"]);
  });

  it("an apply error is Stalled: kstatus Failed, Argo CD Degraded; suspended is Stalled too (Argo CD Suspended)", async (t) => {
    const ns = await testNamespace(t, "health-error");
    await kubectl(
      ["apply", "-n", ns, "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: bad }\nspec: { port: 70000 }\n`,
    );
    const failed = await eventually(
      async () => {
        const o = await get(ns, "bad");
        assert.equal(o.status?.state, "ERROR", JSON.stringify(o.status));
        return o;
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(await judged(failed), ["Failed", "Degraded"]);

    await kubectl(["annotate", kind.toLowerCase(), "bad", "-n", ns, "kro.run/reconcile=suspended"]);
    const suspended = await eventually(
      async () => {
        const o = await get(ns, "bad");
        assert.equal(
          o.status?.conditions?.find((c) => c.type === "Stalled")?.reason,
          "ReconciliationSuspended",
          JSON.stringify(o.status),
        );
        return o;
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(await judged(suspended), ["Failed", "Suspended"]);
  });
});
