/**
 * An API that evolves (docs/design/api-versions.md): instances made at v1alpha1, then an RGD revision
 * adds v1beta1 (a renamed and a moved field) as the storage version. Every instance reads at both
 * versions through the controller's conversion webhook, a patch at either version reaches the
 * children, and storage migration rewrites every object so v1alpha1 leaves status.storedVersions.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const suffix = letterSuffix();
const kind = `Evo${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const crdName = `${plural}.kro.run`;
const rgdName = `evolving-${suffix}`;
const namespace = `versions-${suffix}`;
let tc: TestController;
const label = { key: "kro-ts.test/controller", value: `versions-${suffix}` };

const HUB = `
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      image: string | default="nginx"
      port: integer | default=80
      team: string | default="web"`;
const V1BETA1 = `
    deprecated: true
    deprecationWarning: "v1alpha1 ${kind} is deprecated; use v1beta1"
    versions:
      - name: v1beta1
        storage: true
        spec:
          image: string | default="nginx"
          ports:
            http: integer | default=80
          owner:
            team: string | default="web"
        conversion:
          toHub:
            spec:
              port: \${self.spec.ports.http}
              team: \${self.spec.owner.team}
          fromHub:
            spec:
              ports:
                http: \${self.spec.port}
              owner:
                team: \${self.spec.team}`;

const rgd = (schemaExtra: string) => `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${tc.label.key}: "${tc.label.value}" }
spec:
  schema:${HUB}${schemaExtra}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data:
          port: \${string(schema.spec.port)}
          team: \${schema.spec.team}
`;

interface Obj {
  apiVersion: string;
  metadata: { name: string; generation?: number };
  spec: Record<string, unknown>;
  data?: Record<string, string>;
  status?: { state?: string; conditions?: { type: string; status: string; observedGeneration?: number }[] };
}
interface Crd {
  spec: {
    versions: { name: string; storage: boolean; served: boolean; deprecated?: boolean }[];
    conversion?: { strategy: string; webhook?: { clientConfig?: { url?: string; caBundle?: string } } };
  };
  status: { storedVersions: string[] };
}

const at = (version: string, name: string) =>
  kubectlJson<Obj>(["get", "-n", namespace, `${plural}.${version}.kro.run`, name]);
const config = (name: string) => kubectlJson<Obj>(["get", "-n", namespace, "configmap", `${name}-config`]);
const names = ["a", "b", "c"];
const crd = () => kubectlJson<Crd & { metadata: { annotations?: Record<string, string> } }>(["get", "crd", crdName]);
const condition = async (type: string) =>
  (await kubectlJson<Obj>(["get", "rgd", rgdName])).status?.conditions?.find((c) => c.type === type) as
    { status: string; reason?: string; message?: string; observedGeneration?: number } | undefined;
const MIGRATION = "internal.kro.run/storage-migration";

async function activeAtCurrentGeneration(): Promise<void> {
  await eventually(
    async () => {
      const live = await kubectlJson<Obj>(["get", "rgd", rgdName]);
      assert.equal(live.status?.state, "Active", JSON.stringify(live.status));
      assert.ok(
        live.status.conditions?.every((c) => c.observedGeneration === live.metadata.generation),
        "conditions are for the current generation",
      );
    },
    { timeout: 90_000 },
  );
}

describe("an RGD whose API gains a version", { timeout: 300_000 }, () => {
  before(async () => {
    tc = await startTestController({ label });
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgd(""));
    await activeAtCurrentGeneration();
    for (const [i, name] of names.entries()) {
      await kubectl(
        ["apply", "-n", namespace, "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name} }\nspec: { port: ${8081 + i}, team: team-${name} }\n`,
      );
    }
    await eventually(
      async () => {
        for (const name of names) assert.equal((await config(name)).data?.team, `team-${name}`);
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", crdName, "--wait=false", "--ignore-not-found"]);
  });

  it("adds v1beta1 as the storage version with the controller's conversion webhook", async () => {
    await kubectl(["apply", "-f", "-"], rgd(V1BETA1));
    await activeAtCurrentGeneration();
    const crd = await kubectlJson<Crd>(["get", "crd", crdName]);
    assert.deepEqual(
      crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false]),
      [
        ["v1alpha1", true, false, true],
        ["v1beta1", true, true, false],
      ],
    );
    assert.equal(crd.spec.conversion?.strategy, "Webhook");
    assert.match(crd.spec.conversion.webhook?.clientConfig?.url ?? "", /^https:\/\/127\.0\.0\.1:\d+\/convert$/);
    assert.match(
      Buffer.from(crd.spec.conversion.webhook?.clientConfig?.caBundle ?? "", "base64").toString(),
      /BEGIN CERTIFICATE/,
    );
  });

  it("reads every instance at both versions", async () => {
    for (const [i, name] of names.entries()) {
      const beta = await at("v1beta1", name);
      assert.equal(beta.apiVersion, "kro.run/v1beta1");
      assert.deepEqual(beta.spec, { image: "nginx", ports: { http: 8081 + i }, owner: { team: `team-${name}` } });
      const alpha = await at("v1alpha1", name);
      assert.deepEqual(alpha.spec, { image: "nginx", port: 8081 + i, team: `team-${name}` });
    }
  });

  it("kubectl prints the deprecation warning for v1alpha1", async () => {
    const { stderr } = await promisify(execFile)("kubectl", [
      "--kubeconfig",
      testCluster().kubeconfig,
      "get",
      "-n",
      namespace,
      `${plural}.v1alpha1.kro.run`,
      "a",
    ]);
    assert.match(stderr, new RegExp(`Warning: v1alpha1 ${kind} is deprecated; use v1beta1`));
  });

  it("a patch at either version reaches the children", async () => {
    await kubectl([
      "patch",
      "-n",
      namespace,
      `${plural}.v1beta1.kro.run`,
      "a",
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { ports: { http: 9090 } } }),
    ]);
    await eventually(
      async () => {
        assert.equal((await config("a")).data?.port, "9090");
      },
      { timeout: 30_000 },
    );
    await kubectl([
      "patch",
      "-n",
      namespace,
      `${plural}.v1alpha1.kro.run`,
      "b",
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { team: "moved" } }),
    ]);
    await eventually(
      async () => {
        assert.equal((await config("b")).data?.team, "moved");
      },
      { timeout: 30_000 },
    );
    assert.deepEqual((await at("v1beta1", "b")).spec.owner, { team: "moved" });
  });

  it("an instance created at v1beta1 is served through the hub", async () => {
    await kubectl(
      ["apply", "-n", namespace, "-f", "-"],
      `apiVersion: kro.run/v1beta1\nkind: ${kind}\nmetadata: { name: d }\nspec: { ports: { http: 7070 }, owner: { team: fresh } }\n`,
    );
    await eventually(
      async () => {
        const cm = await config("d");
        assert.deepEqual([cm.data?.port, cm.data?.team], ["7070", "fresh"]);
      },
      { timeout: 30_000 },
    );
  });

  it("storage migration rewrites every instance, then storedVersions holds only v1beta1", async () => {
    await eventually(
      async () => {
        assert.deepEqual((await crd()).status.storedVersions, ["v1beta1"]);
      },
      { timeout: 60_000 },
    );
    assert.equal((await crd()).metadata.annotations?.[MIGRATION], undefined, "no progress left behind");
    // Told on the RGD, not only in the controller's log.
    await eventually(
      async () => {
        const events = await kubectl([
          "get",
          "events",
          "-A",
          "--field-selector",
          `involvedObject.kind=ResourceGraphDefinition,involvedObject.name=${rgdName}`,
          "-o",
          "jsonpath={range .items[*]}{.reason}{'\\n'}{end}",
        ]);
        assert.match(events, /^StorageMigrationStarted$/m);
        assert.match(events, /^StorageMigrationDone$/m);
      },
      { timeout: 30_000 },
    );
  });

  it("removing v1beta1 while objects are stored at it is refused, naming the version", async () => {
    await kubectl(["apply", "-f", "-"], rgd(""));
    await eventually(
      async () => {
        const kindReady = await condition("KindReady");
        assert.equal(kindReady?.status, "False", JSON.stringify(kindReady));
        assert.equal(kindReady.reason, "BreakingChanges");
        assert.match(kindReady.message ?? "", /version v1beta1 removed while objects are still stored at it/);
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(
      (await crd()).spec.versions.map((v) => v.name),
      ["v1alpha1", "v1beta1"],
      "the CRD is untouched",
    );
  });

  it("a migration stopped half-way resumes from its saved page, and then v1beta1 can go", async () => {
    // A slow controller: one object every 4 s, one per page, so it stops with a page saved and
    // 12 s of work left (a loaded machine takes seconds between seeing the page and stopping).
    await tc.stop();
    tc = await startTestController({ label, storageMigration: { qps: 0.25, pageSize: 1 } });
    const toHub = V1BETA1.replace("storage: true", "storage: false");
    await kubectl(["apply", "-f", "-"], rgd(toHub));
    await eventually(
      async () => {
        assert.match((await crd()).metadata.annotations?.[MIGRATION] ?? "", /"to":"v1alpha1","continue":/);
      },
      { timeout: 60_000, interval: 50 },
    );
    await tc.stop();
    const stopped = await crd();
    assert.deepEqual(
      stopped.status.storedVersions.slice().sort(),
      ["v1alpha1", "v1beta1"],
      "not trimmed before every object is rewritten",
    );
    tc = await startTestController({ label });
    await eventually(
      async () => {
        assert.deepEqual((await crd()).status.storedVersions, ["v1alpha1"]);
      },
      { timeout: 60_000 },
    );
    const rewrites = tc.requests.filter(
      (r) => r.verb === "PUT" && r.path.includes(`/${plural}/`) && !r.path.endsWith("/status"),
    );
    assert.ok(
      rewrites.length < names.length + 1,
      `resumed after the saved page, not from the start: ${rewrites.length} rewrites of ${names.length + 1} objects`,
    );
    // Nothing is stored at v1beta1 any more: the RGD may drop it.
    await kubectl(["apply", "-f", "-"], rgd(""));
    await activeAtCurrentGeneration();
    assert.deepEqual(
      (await crd()).spec.versions.map((v) => v.name),
      ["v1alpha1"],
    );
    assert.deepEqual((await at("v1alpha1", "d")).spec, { image: "nginx", port: 7070, team: "fresh" });
  });
});
