/**
 * Helm's `lookup` and `.Capabilities` read from the real cluster by the controller
 * (docs/design/helm-import.md "lookup and .Capabilities on a cluster"). One chart, imported as kro
 * import helm does: a Secret that keeps its password (lookup of itself, else randAlphaNum), a
 * ConfigMap that reads a Secret the tenant made, a sibling ConfigMap another template creates and a
 * `.Capabilities.APIVersions.Has` branch. What the controller applies is what `helm template
 * --dry-run=server` (lookups against the same cluster) renders; the sibling is read once it
 * exists, never `{}` first; a CRD installed at run time flips the branch; and a tenant cannot
 * read another namespace's Secret through it — refused at runtime, naming template and line —
 * nor create an instance at all without get/list on what the chart looks up.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { helm } from "../support/helm.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";
import { installImportedChart, type InstalledChart } from "../support/imported-chart.js";
import { expectAbsent, kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";

type Cond = { type: string; status: string; message?: string };
interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string };
  data?: Record<string, string>;
  status?: { state?: string; conditions?: Cond[] };
}

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const kind = `Lk${cap}App`;
const group = "lookup.test.kro.run";
const plural = `${kind.toLowerCase()}s`;
const watchGroup = `lk${suffix}.example.com`;

const CHART: Record<string, string> = {
  "Chart.yaml": "apiVersion: v2\nname: vault\nversion: 0.1.0\n",
  "values.yaml": `existingSecret: db-user\nsecretNamespace: ""\ncolor: blue\nwatchGroup: ${watchGroup}\n`,
  "templates/secret.yaml": [
    '{{- $name := printf "%s-pw" .Release.Name }}',
    '{{- $old := lookup "v1" "Secret" .Release.Namespace $name }}',
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    "  name: {{ $name }}",
    "type: Opaque",
    "data:",
    '  password: {{ if $old }}{{ index $old.data "password" }}{{ else }}{{ randAlphaNum 24 | b64enc }}{{ end }}',
  ].join("\n"),
  "templates/base.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-base\ndata:\n  color: {{ .Values.color | quote }}\n",
  "templates/config.yaml": [
    '{{- $ext := lookup "v1" "Secret" (.Values.secretNamespace | default .Release.Namespace) .Values.existingSecret }}',
    '{{- $base := lookup "v1" "ConfigMap" .Release.Namespace (printf "%s-base" .Release.Name) }}',
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: {{ .Release.Name }}-config",
    "data:",
    '  user: {{ if $ext }}{{ index $ext.data "user" | b64dec | quote }}{{ else }}"none"{{ end }}',
    '  base: {{ if $base }}{{ $base.data.color | quote }}{{ else }}"absent"{{ end }}',
    '  crd: {{ .Capabilities.APIVersions.Has (printf "%s/v1" .Values.watchGroup) | quote }}',
  ].join("\n"),
};

const userSecret = (ns: string, user: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "db-user", namespace: ns },
    data: { user: Buffer.from(user).toString("base64") },
  });
const instanceOf = (ns: string, spec: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: `${group}/v1alpha1`, kind, metadata: { name: "rel", namespace: ns }, spec });
const configData = async (ns: string) => (await kubectlJson<Obj>(["get", "configmap", "rel-config", "-n", ns])).data;

describe("Helm lookup and .Capabilities on the cluster", { timeout: 300_000 }, () => {
  let tc: TestController;
  let scratch: string;
  let chart: string;
  let installed: InstalledChart | undefined;
  const rgdName = () => installed?.rgdName ?? "";

  before(async () => {
    tc = await startTestController();
    scratch = await mkdtemp(path.join(os.tmpdir(), "kro-helm-lookup-"));
    chart = path.join(scratch, "vault");
    await mkdir(path.join(chart, "templates"), { recursive: true });
    for (const [file, text] of Object.entries(CHART)) await writeFile(path.join(chart, file), text);
    installed = await installImportedChart(tc, chart, { kind, group });
    await waitRgdActive(rgdName());
  });
  after(async () => {
    await installed?.remove();
    await kubectl(["delete", "crd", `widgets.${watchGroup}`, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("renders what helm renders against the cluster: an existing Secret read, the password kept, the sibling read once it exists", async (t) => {
    const ns = await testNamespace(t, "lookup");
    await kubectl(["apply", "-f", "-"], userSecret(ns, "alice-db"));
    const since = tc.requests.length;
    await kubectl(["apply", "-f", "-"], instanceOf(ns));
    await eventually(
      async () => {
        const app = await kubectlJson<Obj>(["get", plural, "rel", "-n", ns]);
        assert.equal(
          app.status?.conditions?.find((c) => c.type === "Ready")?.status,
          "True",
          JSON.stringify(app.status),
        );
        assert.deepEqual(await configData(ns), { user: "alice-db", base: "blue", crd: "false" });
      },
      { timeout: 60_000 },
    );
    // Ordered after the sibling that creates rel-base: never written with base "absent" first —
    // every write of rel-config starts after rel-base was created. (A later identical re-apply can
    // follow when rel-pw's own lookup answer changes the render: harmless, and timing-dependent.)
    const writesOf = (name: string) =>
      tc.requests
        .slice(since)
        .filter((r) => r.verb !== "GET" && r.path.endsWith(`/namespaces/${ns}/configmaps/${name}`));
    const baseCreated = writesOf("rel-base").find((r) => r.status === 201);
    assert.ok(baseCreated, JSON.stringify(writesOf("rel-base")));
    const configWrites = writesOf("rel-config");
    assert.ok(
      configWrites.length >= 1 && configWrites.every((r) => r.endedAt - r.durationMs >= baseCreated.endedAt),
      JSON.stringify({ baseCreated, configWrites }),
    );

    const password = (await kubectlJson<Obj>(["get", "secret", "rel-pw", "-n", ns])).data?.password ?? "";
    assert.equal(Buffer.from(password, "base64").toString().length, 24);
    // helm's own render with lookups against this cluster: the same objects.
    const { kubeconfig } = testCluster();
    const out = await helm(["template", "rel", chart, "-n", ns, "--dry-run=server", "--kubeconfig", kubeconfig]);
    assert.match(out, new RegExp(`password: ${password.replace(/[+/=]/g, "\\$&")}\\n`));
    assert.match(out, /user: "alice-db"\n\s+base: "blue"\n\s+crd: "false"/);

    // A change re-renders everything; the looked-up password stays (helm upgrade's keep-the-password pattern).
    await kubectl(["patch", plural, "rel", "-n", ns, "--type=merge", "-p", JSON.stringify({ spec: { color: "red" } })]);
    await eventually(
      async () => {
        assert.equal((await configData(ns))?.base, "red");
      },
      { timeout: 60_000 },
    );
    assert.equal((await kubectlJson<Obj>(["get", "secret", "rel-pw", "-n", ns])).data?.password, password);

    // The looked-up Secret changing is an event: the instance renders again.
    await kubectl(["apply", "-f", "-"], userSecret(ns, "bob-db"));
    await eventually(
      async () => {
        assert.equal((await configData(ns))?.user, "bob-db");
      },
      { timeout: 60_000 },
    );

    // .Capabilities.APIVersions follows discovery: a CRD of the watched group installed now flips the branch.
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `widgets.${watchGroup}` },
        spec: {
          group: watchGroup,
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      }),
    );
    await eventually(
      async () => {
        assert.equal((await configData(ns))?.crd, "true");
      },
      { timeout: 60_000 },
    );
  });

  it("a tenant cannot read another namespace's Secret through lookup; a lookup in the instance's own namespace is the RGD's grant", async (t) => {
    const team = await testNamespace(t, "team");
    const other = await testNamespace(t, "other");
    await kubectl(["apply", "-f", "-"], userSecret(other, "admin-db"));
    const alice = `alice-${suffix}`;
    const bob = `bob-${suffix}`;
    const rules = (secrets: boolean) =>
      [
        '  - { apiGroups: [""], resources: [configmaps], verbs: ["*"] }',
        // The chart creates a Secret: both may write Secrets; only alice may read them.
        `  - { apiGroups: [""], resources: [secrets], verbs: [${secrets ? '"*"' : "create, update, patch, delete"}] }`,
        `  - { apiGroups: [${group}], resources: [${plural}], verbs: ["*"] }`,
      ].join("\n");
    const tenant = (user: string, secrets: boolean) => `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: ${user}, namespace: ${team} }
rules:
${rules(secrets)}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: ${user}, namespace: ${team} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${user} }
subjects: [{ kind: User, name: ${user}, apiGroup: rbac.authorization.k8s.io }]
`;
    await kubectl(["apply", "-f", "-"], `${tenant(alice, true)}---${tenant(bob, false)}`);

    // Bob may write but not read Secrets in his namespace. The chart's lookup reads in the
    // instance's own namespace, a scope the RGD fixes: the RGD is the grant, so his instance is
    // admitted (docs/design/authorization.md). Where instance data chooses the namespace, below,
    // the runtime confines the lookup.
    await kubectl([`--as=${bob}`, "create", "--dry-run=server", "-f", "-"], instanceOf(team));

    // Alice may read her own Secrets: her instance is admitted, but its lookup of another namespace is refused at runtime.
    await kubectl([`--as=${alice}`, "create", "-f", "-"], instanceOf(team, { secretNamespace: other }));
    await eventually(
      async () => {
        const app = await kubectlJson<Obj>(["get", plural, "rel", "-n", team]);
        const message = app.status?.conditions?.find((c) => c.type === "ResourcesReady")?.message ?? "";
        assert.match(
          message,
          new RegExp(
            `templates/config\\.yaml:1.*lookup "v1" "Secret" "${other}" "db-user" refused: .*outside the instance's namespace "${team}".*kro\\.run/allow-cross-namespace`,
          ),
        );
        assert.equal(app.status?.conditions?.find((c) => c.type === "Ready")?.status, "False");
      },
      { timeout: 60_000 },
    );
    // Nothing of the chart was applied: no half-rendered objects, and the other team's value is nowhere.
    for (const name of ["rel-config", "rel-base"]) await expectAbsent(["configmap", name, "-n", team]);
    await expectAbsent(["secret", "rel-pw", "-n", team]);
    const configMaps = await kubectl(["get", "configmaps", "-n", team, "-o", "json"]);
    assert.doesNotMatch(configMaps, /admin-db/);
  });
});
