// The install, proven with the controller itself: deploy/kro-controller.yaml
// applied server-side, then `kro-ts controller` run as a process with the installed
// ServiceAccount's own TokenRequest token — least privilege plus what aggregated ClusterRoles
// grant. It reconciles an RGD whose instance kind and ConfigMap child are granted, shows the
// ungranted Secret child on the instance as forbidden (and does not crash), then the refused
// apply once Secrets may only be read, and converges once they may be written, without a restart;
// then the NginxApp example converges once examples/nginx/kro-rbac.yaml is granted. Its --rgd-selector keeps it to this test's RGD:
// other test files run their own controllers against the same API server at the same time.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { it } from "node:test";
import { parse } from "yaml";
import { MANIFEST_PATH, REPO_ROOT } from "../../src/deploy/index.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { eventually } from "../support/eventually.js";
import { lockAggregatedGrants, type AggregatedGrants } from "../support/grant-lock.js";
import { canI, kubectlAs, serviceAccountKubeconfig } from "../support/service-account.js";
import { KubectlError, kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";

const NS = "kro-system";
const SA = "kro-ts";
const ALL_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"];

const suffix = randomBytes(4)
  .toString("hex")
  .replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)] ?? "x");
// A fixed ending keeps the plural predictable (kro's pluralizer turns a trailing "f" into "ves").
const kind = `K${suffix}Vault`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `deploy-rbac-${suffix}`;
const selector = { key: "kro-ts.test/controller", value: `deploy-rbac-${suffix}` };
const exampleGroup = `${suffix}.example.kro-ts.test`;
const exampleRgd = `nginxapp-graph-${suffix}`;

const rgdYaml = `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${selector.key}: "${selector.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      greeting: string | default="hello"
    status:
      greeting: \${config.data.greeting}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data: { greeting: "\${schema.spec.greeting}" }
    - id: token
      template:
        apiVersion: v1
        kind: Secret
        metadata: { name: "\${schema.metadata.name}-token" }
        stringData: { greeting: "\${config.data.greeting}" }
`;

interface Obj {
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  status?: { state?: string; greeting?: string; conditions?: Cond[] };
}
interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Manifest {
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

const condition = (o: Obj, type: string) => o.status?.conditions?.find((c) => c.type === type);
const notFound = (error: unknown) => error instanceof KubectlError && /NotFound/.test(error.stderr);

it("the installed ServiceAccount runs the controller: granted kinds reconcile, an ungranted one is a condition, a later grant converges", async (t) => {
  let grants: AggregatedGrants | undefined;
  let controller: ControllerProcess | undefined;
  let ns = "";
  t.after(async () => {
    // While the controller still runs with its grants, it removes its own finalizers.
    for (const kinds of [plural, `nginxapps.${exampleGroup}`]) {
      if (ns !== "")
        await kubectl(["delete", kinds, "--all", "-n", ns, "--ignore-not-found", "--timeout=30s"]).catch(
          () => undefined,
        );
    }
    await kubectl(["delete", "rgd", rgdName, exampleRgd, "--ignore-not-found", "--timeout=30s"]).catch(() => undefined);
    await controller?.stop();
    await kubectl([
      "delete",
      "crd",
      `${plural}.kro.run`,
      `nginxapps.${exampleGroup}`,
      "--ignore-not-found",
      "--wait=false",
    ]);
    await grants?.release();
  });

  await t.test(
    "the manifest applies server-side; the controller starts with the ServiceAccount's token",
    async (st) => {
      const manifest = await readFile(path.join(REPO_ROOT, MANIFEST_PATH), "utf8");
      await kubectl(["apply", "--server-side", "-f", "-"], manifest);
      grants = await lockAggregatedGrants(`deploy-controller-rbac ${suffix}`);
      ns = await testNamespace(t, "deploy-ctl");
      const { kubeconfig } = await serviceAccountKubeconfig(t, NS, SA);
      assert.equal(
        await kubectlAs(kubeconfig, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]),
        `system:serviceaccount:${NS}:${SA}`,
      );
      await eventually(
        async () => {
          assert.ok(await canI(kubeconfig, ["watch", "resourcegraphdefinitions.kro.run"]));
        },
        { timeout: 30_000 },
      );
      assert.equal(await canI(kubeconfig, ["list", "configmaps"]), false, "nothing granted yet");

      // What the cluster admin grants for this RGD: its instance kind (+ status) and one child kind.
      await grants.grant({
        metadata: { name: `kro-ts-test-${suffix}-vaults` },
        rules: [
          { apiGroups: ["kro.run"], resources: [plural], verbs: ["get", "list", "watch", "update", "patch"] },
          { apiGroups: ["kro.run"], resources: [`${plural}/status`], verbs: ["get", "update", "patch"] },
          { apiGroups: [""], resources: ["configmaps"], verbs: ALL_VERBS },
        ],
      });
      assert.equal(await canI(kubeconfig, ["list", "secrets", "-n", ns]), false);

      controller = await startControllerProcess(kubeconfig, ["--rgd-selector", `${selector.key}=${selector.value}`]);
      st.diagnostic(`controller pid ${controller.pid}`);
    },
  );

  const instance = () => kubectlJson<Obj>(["get", plural, "demo", "-n", ns]);
  const started = (): ControllerProcess => {
    assert.ok(controller, "the controller was started");
    return controller;
  };

  await t.test("the RGD becomes Active and its CRD is installed by the ServiceAccount", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml);
    await eventually(
      async () => {
        const rgd = await kubectlJson<Obj>(["get", "rgd", rgdName]);
        assert.equal(rgd.status?.state, "Active", JSON.stringify(rgd.status));
      },
      { timeout: 60_000, interval: 250 },
    );
    const crd = await kubectlJson<Obj>(["get", "crd", `${plural}.kro.run`]);
    assert.equal(crd.metadata.labels?.["kro.run/resource-graph-definition-name"], rgdName);
  });

  await t.test(
    "the granted ConfigMap is created; the ungranted Secret shows on the instance as forbidden",
    async () => {
      await kubectl(
        ["apply", "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: demo, namespace: ${ns} }\nspec: {}\n`,
      );
      const config = await eventually(() => kubectlJson<Obj>(["get", "configmap", "demo-config", "-n", ns]), {
        timeout: 60_000,
        interval: 250,
      });
      assert.deepEqual(config.data, { greeting: "hello" });
      const failed = await eventually(
        async () => {
          const o = await instance();
          assert.equal(o.status?.state, "ERROR", JSON.stringify(o.status));
          return o;
        },
        { timeout: 60_000, interval: 250 },
      );
      const resources = condition(failed, "ResourcesReady");
      assert.equal(resources?.status, "False", JSON.stringify(failed.status));
      assert.match(resources.message ?? "", /token: cannot watch Secret \(v1\).*forbidden.*not allowed to list it/);
      assert.equal(condition(failed, "Ready")?.status, "False");
      await assert.rejects(kubectl(["get", "secret", "demo-token", "-n", ns]), notFound);
      assert.ok(started().alive(), "the controller survives 403s");
    },
  );

  await t.test("a read-only grant on Secrets: the refused apply shows as forbidden", async () => {
    await grants?.grant({
      metadata: { name: `kro-ts-test-${suffix}-secrets-read` },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] }],
    });
    await eventually(
      async () => {
        const o = await instance();
        const message = condition(o, "ResourcesReady")?.message ?? "";
        assert.match(message, /token: apply Secret .*demo-token: .*forbidden/i, JSON.stringify(o.status));
        assert.equal(o.status?.state, "ERROR");
      },
      { timeout: 60_000, interval: 250 },
    );
    await assert.rejects(kubectl(["get", "secret", "demo-token", "-n", ns]), notFound);
    assert.ok(started().alive());
  });

  await t.test("granting the write verbs too converges the instance without restarting the controller", async () => {
    const { pid } = started();
    await grants?.grant({
      metadata: { name: `kro-ts-test-${suffix}-secrets-write` },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["create", "update", "patch", "delete"] }],
    });
    const converged = await eventually(
      async () => {
        const o = await instance();
        assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
        return o;
      },
      { timeout: 60_000, interval: 250 },
    );
    assert.equal(condition(converged, "Ready")?.status, "True");
    assert.equal(condition(converged, "ResourcesReady")?.status, "True");
    assert.equal(converged.status?.greeting, "hello");
    const secret = await kubectlJson<Obj>(["get", "secret", "demo-token", "-n", ns]);
    assert.equal(Buffer.from(secret.data?.greeting ?? "", "base64").toString(), "hello");
    assert.ok(started().alive());
    assert.equal(started().pid, pid, "same process");
  });

  await t.test(
    "the NginxApp example (template dialect) converges once its examples/nginx/kro-rbac.yaml is granted",
    async () => {
      // The example as shipped, moved to a group of its own: the NginxApp walkthrough test runs
      // the original (same kind, CRD and RGD name) with another controller at the same time.
      const example = async (file: string) =>
        parse(
          (await readFile(path.join(REPO_ROOT, "examples/nginx", file), "utf8")).replaceAll(
            "kro.example.com",
            exampleGroup,
          ),
        ) as Manifest;
      const crd = await example("nginxapp-crd.yaml");
      await kubectl(["create", "-f", "-"], JSON.stringify(crd));
      await kubectl(["wait", "--for=condition=Established", "--timeout=30s", `crd/nginxapps.${exampleGroup}`]);
      const rgd = await example("nginxapp-rgd.yaml");
      rgd.metadata = { ...rgd.metadata, name: exampleRgd, labels: { [selector.key]: selector.value } };
      // The example's rules, under a name of our own (grant() keeps the aggregation label).
      const { rules } = await example("kro-rbac.yaml");
      await grants?.grant({
        metadata: { name: `kro-ts-test-${suffix}-nginxapp` },
        rules: rules as NonNullable<Parameters<AggregatedGrants["grant"]>[0]["rules"]>,
      });
      await kubectl(["apply", "-f", "-"], JSON.stringify(rgd));
      await eventually(
        async () => {
          const o = await kubectlJson<Obj>(["get", "rgd", exampleRgd]);
          assert.equal(o.status?.state, "Active", JSON.stringify(o.status));
        },
        { timeout: 60_000, interval: 250 },
      );
      const app = await example("my-nginx.yaml");
      app.metadata = { ...app.metadata, namespace: ns };
      await kubectl(["apply", "-f", "-"], JSON.stringify(app));
      const converged = await eventually(
        async () => {
          const o = await kubectlJson<Obj & { status?: { availableReplicas?: number } }>([
            "get",
            `nginxapps.${exampleGroup}`,
            "my-nginx",
            "-n",
            ns,
          ]);
          assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
          assert.equal(o.status.availableReplicas, 2, JSON.stringify(o.status));
          return o;
        },
        { timeout: 120_000, interval: 500 },
      );
      assert.equal(condition(converged, "Ready")?.status, "True");
      const children = (
        await kubectl(["get", "deployments,services,ingresses", "-n", ns, "-l", "app=my-nginx", "-o", "name"])
      )
        .trim()
        .split("\n")
        .sort();
      assert.deepEqual(children, [
        "deployment.apps/my-nginx",
        "ingress.networking.k8s.io/my-nginx",
        "service/my-nginx",
      ]);

      await kubectl(["delete", `nginxapps.${exampleGroup}`, "my-nginx", "-n", ns, "--timeout=60s"]);
      assert.equal(
        (await kubectl(["get", "deployments,services,ingresses", "-n", ns, "-l", "app=my-nginx", "-o", "name"])).trim(),
        "",
      );
      await kubectl(["delete", "rgd", exampleRgd, "--timeout=60s"]);
      assert.ok(started().alive());
    },
  );

  await t.test(
    "deleting the instance and the RGD works with the same rights; the controller only exits by our signal",
    async () => {
      await kubectl(["delete", plural, "demo", "-n", ns, "--timeout=60s"]);
      await assert.rejects(kubectl(["get", "configmap", "demo-config", "-n", ns]), notFound);
      await assert.rejects(kubectl(["get", "secret", "demo-token", "-n", ns]), notFound);
      await kubectl(["delete", "rgd", rgdName, "--timeout=60s"]);
      const running = started();
      assert.ok(running.alive(), "still running at the end");
      const exit = await running.stop();
      assert.deepEqual(
        exit,
        { code: 0, signal: null },
        `a graceful exit on SIGTERM:\n${running.output().slice(-4000)}`,
      );
      assert.doesNotMatch(running.output(), /uncaught|unhandled|FATAL/i);
    },
  );
});
