/**
 * An escalation through an RGD's children, replayed with a real user on the real API server
 * (impersonation through `kubectl --as`, so authorization and admission see the user exactly as
 * with a token): alice may create instances and ConfigMaps in her team's namespace only. With an
 * RGD whose child namespace and name come from the instance spec she must not write
 * kube-system/admin-config or bind team-a's default ServiceAccount to cluster-admin — refused at
 * admission by the RGD's generated ValidatingAdmissionPolicy, naming the child and the missing
 * permission. An admin's instance of that RGD writes them, as in kro (permission decides, not
 * position). A legitimate instance of alice's converges, and her deleting it touches nothing
 * outside her namespace.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { eventually } from "../support/eventually.js";
import { expectAbsent, KubectlError, kubectl, kubectlJson } from "../support/test-cluster.js";
import {
  delegationStamp,
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const run = promisify(execFile);
const CLI = path.resolve(new URL("../../src/cli/main.js", import.meta.url).pathname);

type Cond = { type: string; status: string; reason?: string; message?: string };
interface Obj {
  metadata: { name: string; namespace?: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  status?: { state?: string; conditions?: Cond[] };
}
interface List {
  items: Obj[];
}

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const team = `team-a-${suffix}`;
const alice = `alice-${suffix}`;
const adminConfig = `admin-config-${suffix}`;
const binding = `escalate-${suffix}`;
const escalateKind = `Esc${cap}App`;
const escalatePlural = `${escalateKind.toLowerCase()}s`;
const legitKind = `Fair${cap}App`;
const legitPlural = `${legitKind.toLowerCase()}s`;
const escalateRgd = `escalate-${suffix}`;
const legitRgd = `fair-${suffix}`;
let tc: TestController;
let dir = "";

const escalateYaml = () => `${rgdHeader(tc, escalateRgd)}
  schema:
    apiVersion: v1alpha1
    kind: ${escalateKind}
    spec:
      ns: string
      name: string
  resources:
    - id: own
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-own" }
        data: { ok: "yes" }
    - id: target
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: \${schema.spec.name}
          namespace: \${schema.spec.ns}
        data: { owner: alice }
    - id: admin
      template:
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata: { name: "\${schema.spec.name}" }
        roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
        subjects: [{ kind: ServiceAccount, name: default, namespace: "\${schema.metadata.namespace}" }]
`;

const instance = (kind: string, name: string, spec: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${team} }\nspec: ${spec}\n`;
const evil = (name: string, ns: string) => instance(escalateKind, name, `{ ns: ${ns}, name: ${binding} }`);
const asAlice = (args: readonly string[], stdin?: string) => kubectl([`--as=${alice}`, ...args], stdin);
const canDefaultDoEverything = async () => {
  try {
    await kubectl(["auth", "can-i", "*", "*", `--as=system:serviceaccount:${team}:default`]);
    return true;
  } catch (error) {
    if (error instanceof KubectlError) return false;
    throw error;
  }
};

/** Everything outside the team namespace the escalation could have touched. */
async function outsideSnapshot(): Promise<string> {
  const kubeSystem = await kubectlJson<List>(["get", "configmaps", "-n", "kube-system"]);
  const bindings = await kubectlJson<{ items: (Obj & { subjects?: { namespace?: string }[] })[] }>([
    "get",
    "clusterrolebindings",
  ]);
  const config = await kubectlJson<Obj>(["get", "configmap", adminConfig, "-n", "kube-system"]);
  return JSON.stringify({
    kubeSystem: kubeSystem.items.map((o) => `${o.metadata.name}/${o.metadata.uid}`).sort(),
    adminConfig: [config.metadata.uid, config.metadata.resourceVersion, config.data, config.metadata.labels ?? {}],
    teamBindings: bindings.items
      .filter((b) => (b.subjects ?? []).some((s) => s.namespace === team))
      .map((b) => b.metadata.name),
    ourBinding: bindings.items.some((b) => b.metadata.name === binding),
  });
}

/** Objects labelled as children of our kinds, anywhere but the team namespace. */
async function childrenOutsideTeam(): Promise<string[]> {
  const found: string[] = [];
  for (const kind of [escalateKind, legitKind]) {
    const cms = await kubectlJson<List>(["get", "configmaps", "-A", "-l", `kro.run/instance-kind=${kind}`]);
    const crbs = await kubectlJson<List>(["get", "clusterrolebindings", "-l", `kro.run/instance-kind=${kind}`]);
    found.push(
      ...cms.items
        .filter((o) => o.metadata.namespace !== team)
        .map((o) => `ConfigMap ${o.metadata.namespace ?? ""}/${o.metadata.name}`),
    );
    found.push(...crbs.items.map((o) => `ClusterRoleBinding ${o.metadata.name}`));
  }
  return found;
}

async function policies(rgd: string): Promise<string[]> {
  const uid = (await kubectlJson<Obj>(["get", "rgd", rgd])).metadata.uid;
  const list = await kubectlJson<List>([
    "get",
    "validatingadmissionpolicies",
    "-l",
    `kro.run/resource-graph-definition-id=${uid}`,
  ]);
  return list.items.map((o) => o.metadata.name);
}

describe("instance authors can do no more than they could themselves", { timeout: 300_000 }, () => {
  before(async () => {
    tc = await startTestController();
    dir = await mkdtemp(path.join(tmpdir(), "kro-authz-"));
    await kubectl(["create", "namespace", team]);
    await kubectl(
      ["apply", "-f", "-"],
      `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: tenant, namespace: ${team} }
rules:
  - { apiGroups: [""], resources: [configmaps], verbs: ["*"] }
  - { apiGroups: [kro.run], resources: [${escalatePlural}, ${legitPlural}], verbs: ["*"] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: tenant-${alice}, namespace: ${team} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: tenant }
subjects: [{ kind: User, name: ${alice}, apiGroup: rbac.authorization.k8s.io }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: ${adminConfig}, namespace: kube-system }
data: { owner: admin }
`,
    );
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", escalateRgd, legitRgd, "--wait=false", "--ignore-not-found"]).catch(
      () => undefined,
    );
    await kubectl(["delete", "configmap", adminConfig, "-n", "kube-system", "--ignore-not-found"]).catch(
      () => undefined,
    );
    await kubectl(["delete", "clusterrolebinding", binding, "--ignore-not-found"]).catch(() => undefined);
    await kubectl(["delete", "namespace", team, "--wait=false", "--ignore-not-found"]).catch(() => undefined);
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  it("kro validate warns about the instance-chosen namespace and the cluster-scoped child, at file:line:col, exit 0", async () => {
    const file = path.join(dir, "escalate.yaml");
    await writeFile(file, escalateYaml());
    const { stdout, stderr } = await run(process.execPath, [CLI, "validate", "-f", file]);
    assert.match(stdout, /valid/);
    assert.match(
      stderr,
      new RegExp(
        `escalate\\.yaml:\\d+:\\d+: warning: spec\\.resources\\[1\\]\\.template\\.metadata\\.namespace: resource "target" takes its namespace from instance data`,
      ),
    );
    assert.match(
      stderr,
      /escalate\.yaml:\d+:\d+: warning: spec\.resources\[2\]\.template\.kind: resource "admin" is cluster-scoped/,
    );
  });

  it("refuses alice's escalation at admission, naming the child and the missing permission; nothing outside her namespace changes", async () => {
    await kubectl(["apply", "-f", "-"], escalateYaml());
    await waitRgdActive(escalateRgd);
    assert.equal(await canDefaultDoEverything(), false);
    const before = await outsideSnapshot();
    // The API server loads a new policy asynchronously: probe with a server-side dry run first.
    await eventually(
      async () => {
        await assert.rejects(
          asAlice(["create", "--dry-run=server", "-f", "-"], evil("probe", "kube-system")),
          /denied request/,
        );
      },
      { timeout: 30_000 },
    );
    await assert.rejects(asAlice(["create", "-f", "-"], evil("evil", "kube-system")), (e: unknown) => {
      assert.ok(e instanceof KubectlError);
      assert.match(
        e.stderr,
        new RegExp(
          `user ${alice} may not create configmaps in namespace kube-system, which resource "target" of ResourceGraphDefinition ${escalateRgd} would create`,
        ),
      );
      return true;
    });
    // In her own namespace the ClusterRoleBinding still needs a permission she lacks.
    await assert.rejects(asAlice(["create", "-f", "-"], evil("evil", team)), (e: unknown) => {
      assert.ok(e instanceof KubectlError);
      assert.match(
        e.stderr,
        new RegExp(
          `user ${alice} may not create clusterrolebindings\\.rbac\\.authorization\\.k8s\\.io \\(cluster-scoped\\), which resource "admin"`,
        ),
      );
      return true;
    });
    await expectAbsent([escalatePlural, "evil", "-n", team]);
    assert.equal(await outsideSnapshot(), before);
    assert.deepEqual(await childrenOutsideTeam(), []);
    assert.equal(await canDefaultDoEverything(), false);
  });

  // Permission decides, not position. (Before that, containment refused these
  // children even for an administrator; kro writes them, and so does kro-ts now.)
  it("an admin's instance of the same RGD behaves as in kro: the kube-system and cluster-scoped children are written, and deleting the instance removes them", async () => {
    const before = await outsideSnapshot();
    await kubectl(["apply", "-f", "-"], evil("admins", "kube-system"));
    await eventually(
      async () => {
        const o = await kubectlJson<Obj>(["get", escalatePlural, "admins", "-n", team]);
        assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
        assert.equal((await kubectlJson<Obj>(["get", "configmap", binding, "-n", "kube-system"])).data?.owner, "alice");
        await kubectlJson<Obj>(["get", "clusterrolebinding", binding]);
        assert.equal((await kubectlJson<Obj>(["get", "configmap", "admins-own", "-n", team])).data?.ok, "yes");
      },
      { timeout: 30_000 },
    );
    await kubectl(["delete", escalatePlural, "admins", "-n", team, "--timeout=60s"]);
    await expectAbsent(["configmap", "admins-own", "-n", team]);
    await expectAbsent(["configmap", binding, "-n", "kube-system"]);
    await expectAbsent(["clusterrolebinding", binding]);
    assert.equal(await outsideSnapshot(), before);
    assert.deepEqual(await childrenOutsideTeam(), []);
    assert.equal(await canDefaultDoEverything(), false);
  });

  it("the RGD author opting in to cross-namespace and cluster-scoped children does not lift the author check", async () => {
    const before = await outsideSnapshot();
    await kubectl([
      "annotate",
      "rgd",
      escalateRgd,
      "kro.run/allow-cross-namespace=true",
      "kro.run/allow-cluster-scoped=true",
      "--overwrite",
    ]);
    await assert.rejects(
      asAlice(["create", "-f", "-"], evil("evil", "kube-system")),
      /may not create configmaps in namespace kube-system/,
    );
    await assert.rejects(asAlice(["create", "-f", "-"], evil("evil", team)), /may not create clusterrolebindings/);
    await expectAbsent([escalatePlural, "evil", "-n", team]);
    assert.equal(await outsideSnapshot(), before);
    assert.deepEqual(await childrenOutsideTeam(), []);
  });

  it("alice's legitimate instance converges with no extra setup, and deleting it touches nothing outside her namespace", async () => {
    await kubectl(
      ["apply", "-f", "-"],
      `${rgdHeader(tc, legitRgd)}
  schema:
    apiVersion: v1alpha1
    kind: ${legitKind}
    spec:
      greeting: string | default=hello
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data: { greeting: "\${schema.spec.greeting}" }
`,
    );
    await waitRgdActive(legitRgd);
    const before = await outsideSnapshot();
    await eventually(
      async () => {
        await asAlice(["create", "--dry-run=server", "-f", "-"], instance(legitKind, "mine", "{ greeting: hi }"));
      },
      { timeout: 30_000 },
    );
    await asAlice(["apply", "-f", "-"], instance(legitKind, "mine", "{ greeting: hi }"));
    await eventually(
      async () => {
        assert.equal((await kubectlJson<Obj>(["get", legitPlural, "mine", "-n", team])).status?.state, "ACTIVE");
        assert.equal((await kubectlJson<Obj>(["get", "configmap", "mine-config", "-n", team])).data?.greeting, "hi");
      },
      { timeout: 30_000 },
    );
    // An update by alice goes through the same check and converges too.
    await asAlice(["apply", "-f", "-"], instance(legitKind, "mine", "{ greeting: bye }"));
    await eventually(async () => {
      assert.equal((await kubectlJson<Obj>(["get", "configmap", "mine-config", "-n", team])).data?.greeting, "bye");
    });
    await asAlice(["delete", legitPlural, "mine", "-n", team, "--timeout=60s"]);
    await expectAbsent(["configmap", "mine-config", "-n", team]);
    assert.equal(await outsideSnapshot(), before);
    assert.deepEqual(await childrenOutsideTeam(), []);
    assert.equal(await canDefaultDoEverything(), false);
  });

  it("the RGD author can switch the check off, and the policy goes with the RGD", async () => {
    assert.deepEqual(await policies(legitRgd), [`kro-author.${legitRgd}.0`]);
    // Turning the check off delegates everything: the writer records themselves (kro-delegation policy).
    const stamp = Object.entries(await delegationStamp()).map(([k, v]) => `${k}=${v}`);
    await kubectl(["annotate", "rgd", legitRgd, "kro.run/author-check=Disabled", ...stamp]);
    // 60 s: the RGD reconcile verifies the delegation first; 30 s was once too short with three
    // suites beside this one on two cores (a liveness check, not a timing bound).
    await eventually(
      async () => {
        assert.deepEqual(await policies(legitRgd), []);
      },
      { timeout: 60_000 },
    );
    await kubectl(["annotate", "rgd", legitRgd, "kro.run/author-check-"]);
    await eventually(
      async () => {
        assert.deepEqual(await policies(legitRgd), [`kro-author.${legitRgd}.0`]);
      },
      { timeout: 60_000 },
    );
    const uid = (await kubectlJson<Obj>(["get", "rgd", legitRgd])).metadata.uid;
    await kubectl(["delete", "rgd", legitRgd, "--timeout=60s"]);
    await eventually(async () => {
      const left = await kubectlJson<List>([
        "get",
        "validatingadmissionpolicies,validatingadmissionpolicybindings",
        "-l",
        `kro.run/resource-graph-definition-id=${uid}`,
      ]);
      assert.deepEqual(
        left.items.map((o) => o.metadata.name),
        [],
      );
    });
  });
});
