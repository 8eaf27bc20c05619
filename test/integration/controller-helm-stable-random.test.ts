/**
 * Stable randomness on the real control plane: a chart whose Deployment carries
 * `rollme: {{ randAlphaNum 5 }}` (the classic "restart pods on every upgrade" trick) and a
 * `now` timestamp. Helm renders it once per install/upgrade; the controller renders it on every
 * resync, so it must render the same bytes: the Deployment's resourceVersion stays put across
 * resyncs and a controller restart, and a spec change (a new generation, like `helm upgrade`)
 * re-rolls the value once.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";
import { installImportedChart, type InstalledChart } from "../support/imported-chart.js";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";
import type { HelmImportResult } from "../../src/helm/index.js";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  annotations:
    deployed-at: {{ now | unixEpoch | quote }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels: { app: {{ .Release.Name }} }
  template:
    metadata:
      labels: { app: {{ .Release.Name }} }
      annotations:
        rollme: {{ randAlphaNum 5 | quote }}
    spec:
      containers:
        - name: web
          image: nginx
`;
const SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-pw
stringData:
  password: {{ randAlphaNum 16 | quote }}
  id: {{ uuidv4 | quote }}
`;

interface Deployment {
  metadata: { resourceVersion: string; annotations: Record<string, string> };
  spec: { template: { metadata: { annotations: Record<string, string> } } };
}
interface Secret {
  metadata: { resourceVersion: string };
}

describe("random and time functions render once per generation", { timeout: 240_000 }, () => {
  let tc: TestController;
  let scratch: string;
  let imported: HelmImportResult;
  let installed: InstalledChart | undefined;
  const kind = `Roll${letterSuffix()}App`;
  const group = "stablerandom.test.kro.run";
  const plural = `${kind.toLowerCase()}s.${group}`;

  before(async () => {
    tc = await startTestController();
    scratch = await mkdtemp(path.join(os.tmpdir(), "kro-stable-random-"));
    const chart = path.join(scratch, "roll");
    await mkdir(path.join(chart, "templates"), { recursive: true });
    await writeFile(path.join(chart, "Chart.yaml"), "apiVersion: v2\nname: roll\nversion: 0.1.0\n");
    await writeFile(path.join(chart, "values.yaml"), "replicaCount: 1\n");
    await writeFile(path.join(chart, "templates/deployment.yaml"), DEPLOYMENT);
    await writeFile(path.join(chart, "templates/secret.yaml"), SECRET);
    installed = await installImportedChart(tc, chart, { kind, group });
    imported = installed.imported;
  });
  after(async () => {
    await installed?.remove();
    await tc.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("keeps resourceVersions across resyncs and a restart; a spec change re-rolls once", async (t) => {
    await waitRgdActive(installed?.rgdName ?? "");
    const ns = await testNamespace(t, "stable-random");
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ ...imported.instance, metadata: { name: "rel", namespace: ns }, spec: { replicaCount: 1 } }),
    );
    const deployment = (): Promise<Deployment> => kubectlJson<Deployment>(["get", "deployment", "rel-web", "-n", ns]);
    const secret = (): Promise<Secret> => kubectlJson<Secret>(["get", "secret", "rel-pw", "-n", ns]);
    const first = await eventually(deployment, { timeout: 60_000 });
    const firstSecret = await eventually(secret, { timeout: 60_000 });
    const rollme = first.spec.template.metadata.annotations.rollme ?? "";
    assert.match(rollme, /^[A-Za-z0-9]{5}$/);
    // `now` is the instant recorded for the generation, so it is on the instance.
    const app = await kubectlJson<{ metadata: { annotations: Record<string, string> } }>([
      "get",
      plural,
      "rel",
      "-n",
      ns,
    ]);
    const recorded = app.metadata.annotations["internal.kro.run/render-time"] ?? "";
    assert.match(recorded, /^1@/);
    assert.equal(first.metadata.annotations["deployed-at"], String(Date.parse(recorded.slice(2)) / 1000));

    // Let the first reconciles settle, then resync several times.
    const settled = async (): Promise<void> => {
      let before = -1;
      await eventually(
        () => {
          const now = tc.evaluated.length;
          const same = now === before;
          before = now;
          assert.ok(same, "still evaluating");
        },
        { timeout: 30_000, interval: 1_000 },
      );
    };
    await settled();
    const stable = await deployment();
    for (let i = 0; i < 4; i++) {
      const seen = tc.evaluated.length;
      tc.controller.resync();
      await eventually(
        () => {
          assert.ok(tc.evaluated.length > seen);
        },
        { timeout: 30_000 },
      );
    }
    await settled();
    assert.equal(
      (await deployment()).metadata.resourceVersion,
      stable.metadata.resourceVersion,
      "a resync must not re-render the random annotation",
    );
    assert.equal((await secret()).metadata.resourceVersion, firstSecret.metadata.resourceVersion);

    // A controller restart: the same instance at the same generation renders the same bytes.
    await tc.stop();
    tc = await startTestController({ label: tc.label });
    await eventually(
      () => {
        assert.ok(tc.evaluated.some((e) => e === `${ns}/rel`));
      },
      { timeout: 60_000 },
    );
    await settled();
    assert.equal(
      (await deployment()).metadata.resourceVersion,
      stable.metadata.resourceVersion,
      "a restart must not re-render the random annotation",
    );
    assert.equal((await secret()).metadata.resourceVersion, firstSecret.metadata.resourceVersion);

    // A spec change is an upgrade: the value re-rolls, once.
    await kubectl([
      "patch",
      plural,
      "rel",
      "-n",
      ns,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { replicaCount: 2 } }),
    ]);
    const upgraded = await eventually(
      async () => {
        const d = await deployment();
        assert.notEqual(d.spec.template.metadata.annotations.rollme, rollme);
        return d;
      },
      { timeout: 60_000 },
    );
    await settled();
    const upgradedVersion = (await deployment()).metadata.resourceVersion;
    for (let i = 0; i < 3; i++) {
      const seen = tc.evaluated.length;
      tc.controller.resync();
      await eventually(
        () => {
          assert.ok(tc.evaluated.length > seen);
        },
        { timeout: 30_000 },
      );
    }
    await settled();
    const after = await deployment();
    assert.equal(after.spec.template.metadata.annotations.rollme, upgraded.spec.template.metadata.annotations.rollme);
    assert.equal(after.metadata.resourceVersion, upgradedVersion, "after the upgrade, resyncs are quiet again");
    const generation2 = await kubectlJson<{ metadata: { annotations: Record<string, string> } }>([
      "get",
      plural,
      "rel",
      "-n",
      ns,
    ]);
    assert.match(generation2.metadata.annotations["internal.kro.run/render-time"] ?? "", /^2@/);
  });
});
