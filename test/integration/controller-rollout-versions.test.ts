/**
 * A rollout meets an API version (docs/design/rollouts.md, "API versions"): ten instances of an RGD
 * with a rollout policy (a first wave of 20 %, then an hour's pause) are made at v1alpha1; the next
 * revision adds v1beta1 as the storage version and changes every child. Storage migration then
 * rewrites all ten instances — a write to each, through the conversion webhook — and that must not
 * move any instance faster than the policy: two take the change, eight keep their children as they
 * were until the pause ends, and every instance stays readable at both versions.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import { letterSuffix, rgdHeader, startTestController, type TestController } from "../support/controller.js";

const COUNT = 10;
const suffix = letterSuffix();
const kind = `RollEvo${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}`;
const plural = `${kind.toLowerCase()}s`;
const crdName = `${plural}.kro.run`;
const rgdName = `roll-evo-${suffix}`;
const namespace = `roll-evo-${suffix}`;
const names = Array.from({ length: COUNT }, (_, i) => `app-${i}`);
let tc: TestController;

const V1BETA1 = `
    versions:
      - name: v1beta1
        storage: true
        spec:
          ports:
            http: integer | default=80
        conversion:
          toHub:
            spec:
              port: \${self.spec.ports.http}
          fromHub:
            spec:
              ports:
                http: \${self.spec.port}`;

const rgd = (rev: string, versions: string) => `${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      port: integer | default=80${versions}
  rollout:
    waves: [{ name: first, percent: 20 }]
    maxUpdating: 10
    gate: { readyWithin: 60s }
    pauseBetweenWaves: 1h
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data:
          port: \${string(schema.spec.port)}
          rev: "${rev}"
`;

interface Crd {
  spec: { versions: { name: string; storage: boolean }[] };
  status: { storedVersions?: string[] };
}

const revs = async (): Promise<string[]> =>
  Promise.all(
    names.map(
      async (name) =>
        (await kubectlJson<{ data?: { rev?: string } }>(["get", "configmap", `${name}-config`, "-n", namespace])).data
          ?.rev ?? "",
    ),
  );

describe("a rollout across a new storage version", { timeout: 300_000 }, () => {
  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    tc = await startTestController({ storageMigration: { qps: 50, pageSize: 2 } });
    await kubectl(["apply", "-f", "-"], rgd("r1", ""));
    await kubectl(
      ["apply", "-f", "-"],
      names
        .map(
          (name) =>
            `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: { port: 8080 }\n`,
        )
        .join("---\n"),
    );
    await eventually(
      async () => {
        assert.deepEqual(
          await revs(),
          names.map(() => "r1"),
        );
      },
      { timeout: 120_000, interval: 500 },
    );
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]).catch(() => "");
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]).catch(() => "");
  });

  it("storage migration rewrites every instance, and only the first wave takes the revision that added the version", async () => {
    await kubectl(["apply", "-f", "-"], rgd("r2", V1BETA1));
    // The new storage version is in place and every instance was rewritten at it.
    await eventually(
      async () => {
        const crd = await kubectlJson<Crd>(["get", "crd", crdName]);
        assert.equal(crd.spec.versions.find((v) => v.storage)?.name, "v1beta1");
        assert.deepEqual(crd.status.storedVersions, ["v1beta1"]);
      },
      { timeout: 120_000, interval: 500 },
    );
    await eventually(
      async () => {
        const condition = (
          await kubectlJson<{ status?: { conditions?: { type: string; reason?: string }[] } }>(["get", "rgd", rgdName])
        ).status?.conditions?.find((c) => c.type === "Propagated");
        assert.equal(condition?.reason, "WaitingBetweenWaves", JSON.stringify(condition));
      },
      { timeout: 120_000, interval: 500 },
    );
    const now = await revs();
    assert.equal(now.filter((r) => r === "r2").length, COUNT / 5, `the first wave (20 %) only: ${now.join(",")}`);
    assert.equal(now.filter((r) => r === "r1").length, COUNT - COUNT / 5);
    // Every instance answers at both versions through the conversion webhook, whatever revision it runs.
    for (const version of ["v1alpha1", "v1beta1"]) {
      const listed = await kubectlJson<{ items: { spec?: { port?: number; ports?: { http?: number } } }[] }>([
        "get",
        `${plural}.${version}.kro.run`,
        "-n",
        namespace,
      ]);
      assert.equal(listed.items.length, COUNT);
      for (const item of listed.items)
        assert.equal(version === "v1alpha1" ? item.spec?.port : item.spec?.ports?.http, 8080, version);
    }
  });
});
