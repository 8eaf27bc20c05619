/**
 * The seed's walkthrough, verbatim: its three `kubectl apply -f` commands on the full local
 * cluster (kwok turns the Deployment's pods Ready), then exactly what the seed checks, then a
 * scale, disabling the ingress, and deleting the instance.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import { expectAbsent, kubectl, kubectlJson } from "../support/test-cluster.js";
import { startTestController, type TestController } from "../support/controller.js";

// The seed types `kubectl get nginxapp`; here the group is spelled out because another test file
// (deploy-controller-rbac) serves an NginxApp kind of its own group on the same API server, and
// kubectl may resolve the short form to that one.
const NGINXAPP = "nginxapps.kro.example.com";
const example = (file: string) => fileURLToPath(new URL(`../../../examples/nginx/${file}`, import.meta.url));
type Cond = { type: string; status: string; reason?: string };
interface NginxApp {
  status?: {
    availableReplicas?: number;
    readyReplicas?: number;
    serviceIP?: string;
    state?: string;
    conditions?: Cond[];
  };
}

describe("the seed's NginxApp walkthrough (template dialect)", { timeout: 240_000 }, () => {
  let tc: TestController;
  before(async () => {
    // The seed's RGD carries no test label: this test's controller takes the unlabelled RGDs.
    tc = await startTestController({ rgdSelector: "!kro-ts.test/controller" });
  });
  after(async () => {
    await kubectl(["delete", "-f", example("my-nginx.yaml"), "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl(["delete", "-f", example("nginxapp-rgd.yaml"), "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
  });

  it("runs the seed's commands and shows what the seed promises", async () => {
    await kubectl(["apply", "-f", example("nginxapp-crd.yaml")]);
    await kubectl(["apply", "-f", example("nginxapp-rgd.yaml")]);
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", "nginxapp-graph"])).status?.state,
          "Active",
        );
      },
      { timeout: 60_000 },
    );
    await kubectl(["apply", "-f", example("my-nginx.yaml")]);

    await eventually(
      async () => {
        const names = (await kubectl(["get", "deployments,services,ingress", "-l", "app=my-nginx", "-o", "name"]))
          .trim()
          .split("\n")
          .sort();
        assert.deepEqual(names, ["deployment.apps/my-nginx", "ingress.networking.k8s.io/my-nginx", "service/my-nginx"]);
      },
      { timeout: 60_000 },
    );

    const app = await eventually(
      async () => {
        const o = await kubectlJson<NginxApp>(["get", NGINXAPP, "my-nginx"]);
        assert.equal(o.status?.availableReplicas, 2, JSON.stringify(o.status));
        assert.equal(o.status.readyReplicas, 2);
        return o;
      },
      { timeout: 120_000 },
    );
    assert.match(app.status?.serviceIP ?? "", /^\d+\.\d+\.\d+\.\d+$/);
    const ready = (app.status?.conditions ?? []).find((c) => c.type === "Ready");
    assert.equal(ready?.status, "True", "Ready is copied from the Deployment's Available");
    assert.equal(ready.reason, "MinimumReplicasAvailable");
    assert.equal(app.status?.state, "ACTIVE");
    const yaml = await kubectl(["get", NGINXAPP, "my-nginx", "-o", "yaml"]);
    assert.match(yaml, /availableReplicas: 2/);
  });

  it("scales, drops the ingress when disabled, and deletes every child with the instance", async () => {
    await kubectl(["patch", NGINXAPP, "my-nginx", "--type=merge", "-p", '{"spec":{"replicas":3}}']);
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ spec: { replicas: number } }>(["get", "deployment", "my-nginx"])).spec.replicas,
          3,
        );
      },
      { timeout: 60_000 },
    );
    await kubectl(["patch", NGINXAPP, "my-nginx", "--type=merge", "-p", '{"spec":{"ingress":{"enabled":false}}}']);
    await eventually(
      async () => {
        await expectAbsent(["ingress", "my-nginx"]);
      },
      { timeout: 60_000 },
    );
    await kubectl(["delete", NGINXAPP, "my-nginx", "--wait=false"]);
    await eventually(
      async () => {
        assert.equal(
          (await kubectl(["get", "deployments,services,ingress", "-l", "app=my-nginx", "-o", "name"])).trim(),
          "",
        );
        await expectAbsent([NGINXAPP, "my-nginx"]);
      },
      { timeout: 60_000 },
    );
  });
});
