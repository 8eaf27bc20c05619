/**
 * Storage migration survives a crash: the controller runs as users run it,
 * in its own process, migrating slowly; it is killed with SIGKILL half-way (no cleanup runs), a
 * new process resumes from the saved page, and only then is v1alpha1 trimmed from
 * status.storedVersions. What etcd really holds is read to prove every object was rewritten.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { storedCustomResource } from "../support/etcd.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";

const suffix = letterSuffix();
const kind = `Crash${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const crdName = `${plural}.kro.run`;
const rgdName = `migrating-${suffix}`;
const namespace = `migration-${suffix}`;
const selector = `kro-ts.test/controller=migration-${suffix}`;
const MIGRATION = "internal.kro.run/storage-migration";
const names = ["a", "b", "c", "d", "e", "f", "g"];

const rgd = (versions: string) => `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { kro-ts.test/controller: "migration-${suffix}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      team: string | default="web"${versions}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data:
          team: \${schema.spec.team}
`;
const V1BETA1 = `
    versions:
      - name: v1beta1
        storage: true
        spec:
          owner:
            team: string | default="web"
        conversion:
          toHub:
            spec:
              team: \${self.spec.owner.team}
          fromHub:
            spec:
              owner:
                team: \${self.spec.team}`;

interface Crd {
  metadata: { annotations?: Record<string, string> };
  status: { storedVersions: string[] };
}
const crd = () => kubectlJson<Crd>(["get", "crd", crdName]);
const storedVersionsOfObjects = async () =>
  Promise.all(names.map(async (name) => (await storedCustomResource("kro.run", plural, namespace, name))?.apiVersion));
const slow = ["--rgd-selector", selector, "--storage-migration-qps", "2", "--storage-migration-page-size", "2"];

describe("storage migration after kill -9 of the controller", { timeout: 240_000 }, () => {
  let controller: ControllerProcess | undefined;
  before(async () => {
    controller = await startControllerProcess(testCluster().kubeconfig, slow);
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgd(""));
    await eventually(
      async () => {
        assert.equal(
          (await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName])).status?.state,
          "Active",
        );
      },
      { timeout: 90_000 },
    );
    for (const name of names)
      await kubectl(
        ["apply", "-n", namespace, "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name} }\nspec: { team: team-${name} }\n`,
      );
    await eventually(
      async () => {
        for (const name of names)
          assert.equal(
            (
              await kubectlJson<{ data?: Record<string, string> }>([
                "get",
                "-n",
                namespace,
                "configmap",
                `${name}-config`,
              ])
            ).data?.team,
            `team-${name}`,
          );
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await controller?.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", crdName, "--wait=false", "--ignore-not-found"]);
  });

  it("resumes from the saved page in a new process; storedVersions is trimmed only when etcd holds every object at v1beta1", async () => {
    assert.deepEqual(
      await storedVersionsOfObjects(),
      names.map(() => "kro.run/v1alpha1"),
      "etcd holds every instance at v1alpha1 before",
    );
    await kubectl(["apply", "-f", "-"], rgd(V1BETA1));
    // Two objects a page, two a second: the first page is saved within about a second.
    await eventually(
      async () => {
        assert.match((await crd()).metadata.annotations?.[MIGRATION] ?? "", /"to":"v1beta1","continue":/);
      },
      { timeout: 60_000, interval: 50 },
    );
    await controller?.kill();
    controller = undefined;
    const atCrash = await storedVersionsOfObjects();
    assert.ok(atCrash.includes("kro.run/v1alpha1"), `killed half-way: ${atCrash.join(", ")}`);
    assert.deepEqual(
      (await crd()).status.storedVersions.slice().sort(),
      ["v1alpha1", "v1beta1"],
      "not trimmed by the killed process",
    );

    controller = await startControllerProcess(testCluster().kubeconfig, ["--rgd-selector", selector]);
    await eventually(
      async () => {
        assert.deepEqual((await crd()).status.storedVersions, ["v1beta1"]);
      },
      { timeout: 90_000 },
    );
    assert.deepEqual(
      await storedVersionsOfObjects(),
      names.map(() => "kro.run/v1beta1"),
      "every object was rewritten at the new storage version",
    );
    assert.equal((await crd()).metadata.annotations?.[MIGRATION], undefined, "no progress left behind");
    const done = /storage migration done; storedVersions trimmed.*rewritten=(\d+)/.exec(controller.output());
    assert.ok(done !== null, `the new process finished the migration:\n${controller.output().slice(-2000)}`);
    assert.ok(
      Number(done[1]) < names.length,
      `resumed after the saved page, not from the start: ${done[1]} of ${names.length} rewritten`,
    );
  });
});
