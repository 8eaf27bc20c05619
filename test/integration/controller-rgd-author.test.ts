/**
 * An RGD grants only what its author may do, on the real control plane. Users are impersonated
 * (`kubectl --as`):
 *  - rita writes RGDs, and may write ConfigMaps in her team's namespace only (until granted more);
 *  - instances are created by an administrator, who could write anywhere: the bound is rita's.
 * The author is recorded at admission (the controller's webhook stamps kro.run/authored-by, the
 * static kro-rgd-author policy refuses a record that is not the writer's), and the write gate asks
 * her rights on every write and read her RGD's instances cause.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import { expectAbsent, KubectlError, kubectl, kubectlJson } from "../support/test-cluster.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";

type Cond = { type: string; status: string; reason?: string; message?: string };
interface Obj {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { state?: string; conditions?: Cond[]; seen?: string };
}

const s = letterSuffix();
const cap = s.charAt(0).toUpperCase() + s.slice(1);
const team = `ra-a-${s}`;
const other = `ra-b-${s}`;
const rita = `rita-${s}`;
const kind = `Cfg${cap}`;
const name = `cfg-${s}`;
let tc: TestController;

const asRita = (args: readonly string[], stdin?: string) => kubectl([`--as=${rita}`, ...args], stdin);
const annotationsLine = (annotations: string) => (annotations === "" ? "" : `  annotations: { ${annotations} }\n`);

/** Two ConfigMaps per instance: one in its own namespace, one in a namespace the RGD fixes; and a read there. */
const cfgRgd = (annotations = "", rgdName = name, selectedBy = `"${tc.label.value}"`) =>
  `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${tc.label.key}: ${selectedBy} }
${annotationsLine(annotations)}spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}${rgdName === name ? "" : "Loose"}
    spec:
      value: string
    status:
      seen: \${shared.data.?seen.orValue("none")}
  resources:
    - id: own
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-own" }
        data: { value: "\${schema.spec.value}" }
    - id: far
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-far", namespace: ${other} }
        data: { value: "\${schema.spec.value}" }
    - id: shared
      externalRef:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: shared, namespace: ${other} }
`;

const instance = (instanceName: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${instanceName}, namespace: ${team} }\nspec: { value: v1 }\n`;

describe("an RGD grants only what its recorded author may do", { timeout: 600_000 }, () => {
  before(async () => {
    // The gate trusts an access review this long: a right granted is seen within a second.
    tc = await startTestController({ accessReviewTtlMs: 1_000 });
    await kubectl(["create", "namespace", team]);
    await kubectl(["create", "namespace", other]);
    await kubectl(["create", "configmap", "shared", "-n", other, "--from-literal=seen=yes"]);
    await kubectl(
      ["apply", "-f", "-"],
      `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: rgd-writer-${s} }
rules: [{ apiGroups: [kro.run], resources: [resourcegraphdefinitions], verbs: ["*"] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: rgd-writer-${s} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: rgd-writer-${s} }
subjects: [{ kind: User, name: ${rita}, apiGroup: rbac.authorization.k8s.io }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: configmaps, namespace: ${team} }
rules: [{ apiGroups: [""], resources: [configmaps], verbs: ["*"] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: configmaps-${rita}, namespace: ${team} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmaps }
subjects: [{ kind: User, name: ${rita}, apiGroup: rbac.authorization.k8s.io }]
`,
    );
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", name, "--wait=false", "--ignore-not-found"]).catch(() => undefined);
    await kubectl(["delete", "namespace", team, other, "--wait=false", "--ignore-not-found"]).catch(() => undefined);
    await kubectl(["delete", "clusterrole,clusterrolebinding", `rgd-writer-${s}`, "--ignore-not-found"]).catch(
      () => undefined,
    );
  });

  it("records who wrote an RGD: the webhook stamps the writer over any other name", async () => {
    // Until the API server has loaded the webhook, a dry run shows no stamp: wait for it, then write.
    await eventually(
      async () => {
        const dry = await asRita(
          ["create", "--dry-run=server", "-o", "json", "-f", "-"],
          cfgRgd(`kro.run/authored-by: system:admin`),
        );
        const annotations = (JSON.parse(dry) as Obj).metadata.annotations ?? {};
        assert.equal(annotations["kro.run/authored-by"], rita);
        assert.equal(annotations["kro.run/authored-groups"], "system:authenticated");
      },
      { timeout: 30_000 },
    );
    await asRita(["create", "-f", "-"], cfgRgd());
    const stored = await kubectlJson<Obj>(["get", "rgd", name]);
    assert.equal(stored.metadata.annotations?.["kro.run/authored-by"], rita);
    // An administrator's label keeps the record; nobody else is made the author by metadata.
    await kubectl(["label", "rgd", name, "team=platform"]);
    assert.equal((await kubectlJson<Obj>(["get", "rgd", name])).metadata.annotations?.["kro.run/authored-by"], rita);
  });

  it("without the webhook (an RGD it does not match) the policy refuses a record that is not the writer's, and keeps a record once made", async () => {
    // A selector label no controller selects: no webhook matches, so only the API server's own policy decides.
    await assert.rejects(
      asRita(
        ["create", "--dry-run=server", "-f", "-"],
        cfgRgd(`kro.run/authored-by: system:admin`, `loose-${s}`, `none-${s}`),
      ),
      (e: unknown) => {
        assert.ok(e instanceof KubectlError, String(e));
        assert.match(e.stderr, /records who wrote it, and writing its spec makes you its author/);
        assert.match(e.stderr, new RegExp(`kro.run/authored-by: \\\\?"${rita}`));
        return true;
      },
    );
    await asRita(
      ["create", "--dry-run=server", "-f", "-"],
      cfgRgd(`kro.run/authored-by: ${rita}`, `loose-${s}`, `none-${s}`),
    );
    await asRita(["create", "--dry-run=server", "-f", "-"], cfgRgd("", `loose-${s}`, `none-${s}`));
    // Once recorded, a record is not dropped: removing it is refused; writing one's own name takes over.
    await asRita(["create", "-f", "-"], cfgRgd(`kro.run/authored-by: ${rita}`, `loose-${s}`, `none-${s}`));
    await assert.rejects(kubectl(["annotate", "rgd", `loose-${s}`, "kro.run/authored-by-"]), /records who wrote it/);
    const admin = (await kubectlJson<{ status: { userInfo: { username: string } } }>(["auth", "whoami", "-o", "json"]))
      .status.userInfo.username;
    await kubectl(["annotate", "--overwrite", "rgd", `loose-${s}`, `kro.run/authored-by=${admin}`]);
    await kubectl(["delete", "rgd", `loose-${s}`]);
  });

  it("an administrator's instance writes and reads only where rita may; granted, it converges", async () => {
    await waitRgdActive(name);
    await kubectl(["apply", "-f", "-"], instance("app"));
    await eventually(
      async () => {
        await kubectlJson(["get", "configmap", "app-own", "-n", team]);
        const status = (await kubectlJson<Obj>(["get", `${kind.toLowerCase()}s`, "app", "-n", team])).status;
        const messages = (status?.conditions ?? []).map((c) => c.message ?? "").join("\n");
        assert.match(
          messages,
          new RegExp(`${rita}, who wrote the RGD, may not create configmaps in namespace ${other}`),
        );
        assert.notEqual(status?.seen, "yes", "the read rita may not make never reaches status");
      },
      { timeout: 60_000 },
    );
    await expectAbsent(["configmap", "app-far", "-n", other]);

    await kubectl(["create", "rolebinding", `configmaps-${rita}`, "-n", other, "--clusterrole=edit", `--user=${rita}`]);
    await eventually(
      async () => {
        await kubectlJson(["get", "configmap", "app-far", "-n", other]);
        const status = (await kubectlJson<Obj>(["get", `${kind.toLowerCase()}s`, "app", "-n", team])).status;
        assert.equal(status?.state, "ACTIVE");
        assert.equal(status.seen, "yes");
      },
      { timeout: 90_000 },
    );
    await kubectl(["delete", `${kind.toLowerCase()}s`, "app", "-n", team, "--timeout=60s"]);
  });
});
