/**
 * Zero-downtime adoption of a live Helm release by the controller, before any importer is
 * involved: `helm install` examples/helm-nginx/chart with the real helm, then an instance of a
 * hand-written template-dialect RGD equivalent to the chart, annotated `kro.run/adopt: "true"`.
 * The controller must take the release's objects over in place (same UIDs, same ReplicaSet and
 * Pods, pod template untouched), become Ready, roll out a later spec change, and on deletion of
 * the instance release the objects (kept, still Helm's) rather than delete them.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import type { KubeObject } from "../../src/index.js";
import { recordText } from "../support/instance-record.js";
import { helm } from "../support/helm.js";
import { assertNothingRecreated, releaseCensus, type ReleaseCensus } from "../support/release-census.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const chartDir = fileURLToPath(new URL("../../../examples/helm-nginx/chart", import.meta.url));
const suffix = letterSuffix();
const kind = `Adopt${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const group = `${suffix}.helm.kro-ts.test`;
const plural = `${kind.toLowerCase()}s`;
const resource = `${plural}.${group}`;
const namespace = `helm-adopt-${suffix}`;
let tc: TestController;

/** The chart's labels, as its _helpers.tpl renders them for release `{{ .parent.metadata.name }}`. */
const labels = (indent: number) =>
  [
    "helm.sh/chart: nginx-0.1.0",
    "app.kubernetes.io/name: nginx",
    "app.kubernetes.io/instance: {{ .parent.metadata.name }}",
    'app.kubernetes.io/version: "1.21.0"',
    "app.kubernetes.io/managed-by: Helm",
  ]
    .map((l) => `${" ".repeat(indent)}${l}`)
    .join("\n");

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${resource} }
spec:
  group: ${group}
  names: { kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;

/** examples/helm-nginx/chart by hand in the template dialect (what `kro import helm` automates). */
const rgd = (tcLabel: TestController) => `${rgdHeader(tcLabel, `adopt-${suffix}`)}
  resourceKind: { group: ${group}, version: v1, kind: ${kind} }
  childResources:
    - id: deployment
      apiVersion: apps/v1
      kind: Deployment
      nameTemplate: "{{ .parent.metadata.name }}-nginx"
      template: |
        metadata:
          labels:
${labels(12)}
        spec:
          replicas: {{ .parent.spec.replicaCount }}
          selector:
            matchLabels:
              app.kubernetes.io/name: nginx
              app.kubernetes.io/instance: {{ .parent.metadata.name }}
          template:
            metadata:
              labels:
${labels(16)}
            spec:
              containers:
                - name: nginx
                  image: "{{ .parent.spec.image.repository }}:{{ .parent.spec.image.tag }}"
                  imagePullPolicy: {{ .parent.spec.image.pullPolicy }}
                  ports:
                    - { name: http, containerPort: 80, protocol: TCP }
                  resources:
                    {{- toYaml .parent.spec.resources | nindent 20 }}
    - id: service
      apiVersion: v1
      kind: Service
      nameTemplate: "{{ .parent.metadata.name }}-nginx"
      template: |
        metadata:
          labels:
${labels(12)}
        spec:
          type: {{ .parent.spec.service.type }}
          ports:
            - { port: {{ .parent.spec.service.port }}, targetPort: http, protocol: TCP, name: http }
          selector:
            app.kubernetes.io/name: nginx
            app.kubernetes.io/instance: {{ .parent.metadata.name }}
    - id: ingress
      apiVersion: networking.k8s.io/v1
      kind: Ingress
      nameTemplate: "{{ .parent.metadata.name }}-nginx"
      condition: "{{ .parent.spec.ingress.enabled }}"
      template: |
        metadata:
          labels:
${labels(12)}
        spec:
          rules:
            {{- range .parent.spec.ingress.hosts }}
            - host: {{ .host | quote }}
              http:
                paths:
                  {{- range .paths }}
                  - path: {{ .path }}
                    pathType: {{ .pathType }}
                    backend:
                      service:
                        name: {{ $.parent.metadata.name }}-nginx
                        port:
                          number: {{ $.parent.spec.service.port }}
                  {{- end }}
            {{- end }}
`;

/** The chart's values.yaml with replicaCount 3 (what the release was installed with). */
const instance = (name: string) =>
  JSON.stringify({
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name, namespace, annotations: { "kro.run/adopt": "true" } },
    spec: {
      replicaCount: 3,
      image: { repository: "nginx", tag: "1.21.0", pullPolicy: "IfNotPresent" },
      service: { type: "ClusterIP", port: 80 },
      ingress: { enabled: true, hosts: [{ host: "example.com", paths: [{ path: "/", pathType: "Prefix" }] }] },
      resources: { limits: { cpu: "100m", memory: "128Mi" }, requests: { cpu: "50m", memory: "64Mi" } },
    },
  });

interface Instance {
  metadata: { annotations?: Record<string, string> };
  status?: { state?: string; conditions?: { type: string; status: string }[] };
}
interface Deployment {
  metadata: { generation: number };
  spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  status?: { availableReplicas?: number; updatedReplicas?: number };
}

async function waitReady(name: string): Promise<Instance> {
  return eventually(
    async () => {
      const o = await kubectlJson<Instance>(["get", resource, name, "-n", namespace]);
      assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
      assert.equal(o.status.conditions?.find((c) => c.type === "Ready")?.status, "True");
      return o;
    },
    { timeout: 120_000 },
  );
}

async function helmInstall(release: string): Promise<ReleaseCensus> {
  await helm([
    "install",
    release,
    chartDir,
    "-n",
    namespace,
    "--set",
    "replicaCount=3",
    "--kubeconfig",
    testCluster().kubeconfig,
  ]);
  return eventually(
    async () => {
      const census = await releaseCensus(namespace, release);
      assert.equal([...census.workload.keys()].filter((k) => k.startsWith("Pod/")).length, 3, "the release's pods run");
      return census;
    },
    { timeout: 120_000 },
  );
}

describe("the controller adopts a live Helm release in place", { timeout: 300_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], crd);
    await kubectl(["apply", "-f", "-"], rgd(tc));
    await waitRgdActive(`adopt-${suffix}`);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", `adopt-${suffix}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", resource, "--wait=false", "--ignore-not-found"]);
  });

  it("takes the objects over with the same UIDs and no restart, rolls out a spec change, releases on deletion", async () => {
    const release = "web";
    const installed = await helmInstall(release);
    await kubectl(["apply", "-f", "-"], instance(release));
    const ready = await waitReady(release);
    // Every child is on the record as adopted ("a"), under the UID Helm's object has.
    const record = recordText(ready as KubeObject);
    for (const [key, uid] of installed.objects)
      assert.ok(record.includes(uid), `${key} is on the instance's record: ${record}`);
    assert.equal((record.match(/"a"\]/g) ?? []).length, 3, `three adopted entries: ${record}`);
    const adopted = await releaseCensus(namespace, release);
    assertNothingRecreated(installed, adopted, "adoption");
    assert.match(
      await helm(["status", release, "-n", namespace, "--kubeconfig", testCluster().kubeconfig]),
      /STATUS: deployed/,
      "the release record is left alone",
    );

    // Re-applying the same instance (a migration run twice) writes nothing that restarts anything.
    await kubectl(["apply", "-f", "-"], instance(release));
    await waitReady(release);
    assertNothingRecreated(installed, await releaseCensus(namespace, release), "second apply");

    // A spec change rolls out through the controller, Helm's field manager notwithstanding.
    await kubectl([
      "patch",
      resource,
      release,
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { replicaCount: 2, image: { tag: "1.22.0" } } }),
    ]);
    await eventually(
      async () => {
        const d = await kubectlJson<Deployment>(["get", "deployment", `${release}-nginx`, "-n", namespace]);
        assert.equal(d.spec.template.spec.containers[0]?.image, "nginx:1.22.0");
        assert.equal(d.spec.replicas, 2);
        assert.equal(d.status?.updatedReplicas, 2);
        assert.equal(d.status.availableReplicas, 2);
      },
      { timeout: 90_000 },
    );
    const rolled = await releaseCensus(namespace, release);
    assert.deepEqual([...rolled.objects].sort(), [...installed.objects].sort(), "the rollout recreated no object");
    assert.equal(
      [...rolled.workload.keys()].filter((k) => k.startsWith("ReplicaSet/")).length,
      2,
      "a new ReplicaSet next to the old one: a rollout",
    );

    // Deleting the instance releases the adopted objects: kept, same UIDs, our labels gone.
    await kubectl(["delete", resource, release, "-n", namespace]);
    const released = await releaseCensus(namespace, release);
    assert.deepEqual([...released.objects].sort(), [...installed.objects].sort(), "released, not deleted");
    for (const item of released.items) {
      assert.deepEqual(
        Object.keys(item.metadata.labels ?? {}).filter((k) => k.startsWith("kro.run/")),
        [],
        `${item.kind}/${item.metadata.name} carries no kro label`,
      );
      assert.equal(
        item.metadata.annotations?.["meta.helm.sh/release-name"],
        release,
        "Helm's own annotations are kept",
      );
    }
    // …so Helm can take the release back: an upgrade (to the record's values) succeeds on them.
    await helm([
      "upgrade",
      release,
      chartDir,
      "-n",
      namespace,
      "--reuse-values",
      "--kubeconfig",
      testCluster().kubeconfig,
    ]);
    await eventually(async () => {
      const d = await kubectlJson<Deployment>(["get", "deployment", `${release}-nginx`, "-n", namespace]);
      assert.equal(d.spec.template.spec.containers[0]?.image, "nginx:1.21.0");
      assert.equal(d.spec.replicas, 3);
    });
    assert.deepEqual([...(await releaseCensus(namespace, release)).objects].sort(), [...installed.objects].sort());
  });

  it("adopts a release whose replicas drifted from the record: the instance's spec wins, without a rollout", async () => {
    const release = "drift";
    const installed = await helmInstall(release);
    // Someone scaled by hand after the install: a replica drift, not a pod-template one.
    await kubectl(["scale", "deployment", `${release}-nginx`, "-n", namespace, "--replicas=5"]);
    await kubectl(["apply", "-f", "-"], instance(release));
    await waitReady(release);
    await eventually(async () => {
      const d = await kubectlJson<Deployment>(["get", "deployment", `${release}-nginx`, "-n", namespace]);
      assert.equal(d.spec.replicas, 3, "scaled back to the instance's replicaCount");
    });
    const after = await releaseCensus(namespace, release);
    assert.deepEqual([...after.objects].sort(), [...installed.objects].sort());
    assert.deepEqual([...after.podTemplates].sort(), [...installed.podTemplates].sort());
    assert.deepEqual(
      [...after.workload.keys()].filter((k) => k.startsWith("ReplicaSet/")),
      [...installed.workload.keys()].filter((k) => k.startsWith("ReplicaSet/")),
      "same ReplicaSet",
    );
    await kubectl(["delete", resource, release, "-n", namespace]);
  });
});
