/**
 * An externalRef is watched in the scope it names, so the controller needs list/watch only
 * there. The controller runs as a ServiceAccount that may get/list/watch Secrets in one
 * namespace and nowhere else (no cluster-wide Secret access at all): an instance reading one
 * Secret by name and a label-selected set of Secrets in that namespace converges, the informers
 * are scoped (field selector on the name; the label selector), and an instance pointing at a
 * Secret in a namespace it may not read fails alone with a message that says so.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createKubeClient, type KubeClient } from "../../src/index.js";
import { startController, type RunningController } from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import { canI, serviceAccountKubeconfig } from "../support/service-account.js";
import { letterSuffix, startTestController } from "../support/controller.js";

const suffix = letterSuffix();
const kind = `Scoped${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `scoped-${suffix}`;
const allowed = `scoped-${suffix}`;
const forbidden = `walled-${suffix}`;
const label = { key: "kro-ts.test/controller", value: randomBytes(4).toString("hex") };
const account = `kro-scoped-${suffix}`;

const rbac = () => [
  { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account, namespace: allowed } },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: account },
    rules: [
      // The controller's base grants (deploy manifest), minus leases …
      {
        apiGroups: ["kro.run"],
        resources: ["resourcegraphdefinitions"],
        verbs: ["get", "list", "watch", "update", "patch"],
      },
      { apiGroups: ["kro.run"], resources: ["resourcegraphdefinitions/status"], verbs: ["get", "update", "patch"] },
      { apiGroups: ["kro.run"], resources: ["resourcegraphdefinitions/finalizers"], verbs: ["update"] },
      {
        apiGroups: ["internal.kro.run"],
        resources: ["graphrevisions"],
        verbs: ["get", "list", "create", "update", "delete"],
      },
      { apiGroups: ["internal.kro.run"], resources: ["graphrevisions/status"], verbs: ["update"] },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        verbs: ["get", "list", "watch", "create", "update", "patch"],
      },
      { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
      {
        apiGroups: ["admissionregistration.k8s.io"],
        resources: ["validatingadmissionpolicies", "validatingadmissionpolicybindings"],
        verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
      },
      { apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"], verbs: ["create"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
      // … plus this RGD's instances and its managed ConfigMaps. No Secrets anywhere.
      { apiGroups: ["kro.run"], resources: [plural, `${plural}/status`], verbs: ["*"] },
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] },
    ],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: account },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: account },
    subjects: [{ kind: "ServiceAccount", name: account, namespace: allowed }],
  },
  // Secrets: read-only, in one namespace.
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "read-secrets", namespace: allowed },
    rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] }],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "read-secrets", namespace: allowed },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "read-secrets" },
    subjects: [{ kind: "ServiceAccount", name: account, namespace: allowed }],
  },
];

const rgdYaml = () => `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${label.key}: "${label.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      secret: string | default=db
      from: string | default=${allowed}
  resources:
    - id: db
      externalRef:
        apiVersion: v1
        kind: Secret
        metadata: { name: "\${schema.spec.secret}", namespace: "\${schema.spec.from}" }
    - id: certs
      externalRef:
        apiVersion: v1
        kind: Secret
        metadata:
          namespace: "\${schema.spec.from}"
          selector: { matchLabels: { role: cert } }
    - id: summary
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-summary" }
        data:
          user: "\${string(base64.decode(db.data.user))}"
          certs: "\${string(size(certs))}"
`;

const secret = (namespace: string, name: string, labels: Record<string, string> = {}) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels },
    stringData: { user: `${name}-user` },
  });
const instance = (name: string, namespace: string, spec: Record<string, string> = {}) =>
  JSON.stringify({ apiVersion: "kro.run/v1alpha1", kind, metadata: { name, namespace }, spec });

interface Status {
  state?: string;
  conditions?: { type: string; status: string; message?: string }[];
}

describe("externalRef scoped to its namespace and name", { timeout: 240_000 }, () => {
  let client: KubeClient | undefined;
  let controller: RunningController | undefined;

  before(async () => {
    // The RGD and GraphRevision CRDs, installed by an admin controller that serves nothing.
    const admin = await startTestController({ rgdSelector: `${label.key}=none-${label.value}` });
    await admin.stop();
    for (const ns of [allowed, forbidden]) await kubectl(["create", "namespace", ns]);
    await kubectl(
      ["apply", "-f", "-"],
      rbac()
        .map((o) => JSON.stringify(o))
        .join("\n"),
    );
    for (const [ns, name, labels] of [
      [allowed, "db", {}],
      [allowed, "cert-a", { role: "cert" }],
      [allowed, "cert-b", { role: "cert" }],
      [allowed, "unrelated", {}],
      [forbidden, "db", {}],
    ] as const) {
      await kubectl(["apply", "-f", "-"], secret(ns, name, labels));
    }
  });
  after(async () => {
    await controller?.stop();
    client?.close();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    for (const ns of [allowed, forbidden])
      await kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "clusterrole,clusterrolebinding", account, "--ignore-not-found"]);
  });

  it("converges with Secret access in one namespace only, through informers scoped by name and by selector", async (t) => {
    const { kubeconfig } = await serviceAccountKubeconfig(t, allowed, account);
    assert.equal(
      await canI(kubeconfig, ["list", "secrets", "--all-namespaces"]),
      false,
      "no cluster-wide Secret access",
    );
    assert.equal(await canI(kubeconfig, ["list", "secrets", "-n", allowed]), true);
    client = await createKubeClient({ kubeconfig, qps: 0 });
    controller = startController({
      client,
      logger: createLogger({ level: "silent", name: "scoped" }),
      kroVersion: "test",
      rgdSelector: `${label.key}=${label.value}`,
      installRgdCrd: false,
    });
    await controller.ready;

    await kubectl(["apply", "-f", "-"], rgdYaml());
    await eventually(
      async () => {
        assert.equal((await kubectlJson<{ status?: Status }>(["get", "rgd", rgdName])).status?.state, "Active");
      },
      { timeout: 60_000 },
    );
    await kubectl(["apply", "-f", "-"], instance("one", allowed));
    await eventually(
      async () => {
        const cm = await kubectlJson<{ data?: Record<string, string> }>([
          "get",
          "configmap",
          "one-summary",
          "-n",
          allowed,
        ]);
        assert.deepEqual(cm.data, { user: "db-user", certs: "2" });
      },
      { timeout: 30_000 },
    );
    await eventually(async () => {
      assert.equal(
        (await kubectlJson<{ status?: Status }>(["get", plural, "one", "-n", allowed])).status?.state,
        "ACTIVE",
      );
    });

    const secretInformers = controller
      .watching()
      .filter((o) => o.kind === "Secret")
      .map((o) => ({ namespace: o.namespace, fieldSelector: o.fieldSelector, labelSelector: o.labelSelector }));
    assert.deepEqual(
      secretInformers.sort((a, b) => String(a.fieldSelector).localeCompare(String(b.fieldSelector))),
      [
        { namespace: allowed, fieldSelector: "metadata.name=db", labelSelector: undefined },
        { namespace: allowed, fieldSelector: undefined, labelSelector: "role=cert" },
      ],
    );

    // The referenced Secret changes: the scoped watch brings it in.
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "db", namespace: allowed },
        stringData: { user: "rotated" },
      }),
    );
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ data?: Record<string, string> }>(["get", "configmap", "one-summary", "-n", allowed]))
            .data?.user,
          "rotated",
        );
      },
      { timeout: 15_000 },
    );
  });

  it("a reference into a namespace the controller may not read fails alone, saying so", async () => {
    const running = controller;
    assert.ok(running !== undefined, "started by the previous test");
    await kubectl(["apply", "-f", "-"], instance("two", allowed, { from: forbidden }));
    await eventually(
      async () => {
        const status = (await kubectlJson<{ status?: Status }>(["get", plural, "two", "-n", allowed])).status;
        const messages = (status?.conditions ?? []).map((c) => c.message ?? "").join(" | ");
        assert.match(
          messages,
          new RegExp(`cannot watch Secret \\(v1\\) in namespace ${forbidden}.*forbidden`),
          JSON.stringify(status),
        );
      },
      { timeout: 30_000 },
    );
    assert.equal(
      (await kubectlJson<{ status?: Status }>(["get", plural, "one", "-n", allowed])).status?.state,
      "ACTIVE",
    );
    assert.ok(
      !running.watching().some((o) => o.kind === "Secret" && o.namespace === forbidden),
      "no informer started where it may not list",
    );
    // Deleting the instances releases their scopes.
    await kubectl(["delete", plural, "one", "two", "-n", allowed]);
    await eventually(
      () => {
        assert.deepEqual(
          running.watching().filter((o) => o.kind === "Secret"),
          [],
        );
      },
      { timeout: 30_000 },
    );
  });
});
