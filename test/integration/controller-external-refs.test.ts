/**
 * External references are read, watched and never written: an instance waits (IN_PROGRESS, not
 * ERROR) until the referenced ConfigMap exists and passes readyWhen, follows its changes into
 * children and status, and leaves it exactly as it found it — same resourceVersion, no field
 * manager of ours, survives the instance's deletion. An external collection (by label selector)
 * grows and shrinks with the objects that match.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, expectAbsent } from "../support/test-cluster.js";
import { rgdHeader, letterSuffix, startTestController, type TestController } from "../support/controller.js";

interface Obj {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    managedFields?: { manager: string }[];
  };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}

const suffix = letterSuffix();
const kind = `Reader${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`; // a fixed ending keeps the plural predictable
const plural = `${kind.toLowerCase()}s`;
const rgdName = `reader-${suffix}`;
const namespace = `ext-${suffix}`;
const team = `team-${suffix}`;
let tc: TestController;

const rgdYaml = () => `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      source: string | default=shared
      team: string | default=${team}
    status:
      color: \${settings.data.color}
      secrets: \${size(creds)}
  resources:
    - id: settings
      readyWhen: ["\${settings.data.?ready.orValue('') == 'true'}"]
      externalRef:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.spec.source}" }
    - id: creds
      externalRef:
        apiVersion: v1
        kind: Secret
        metadata:
          selector:
            matchLabels: { team: "\${schema.spec.team}" }
    - id: app
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-app" }
        data:
          color: \${settings.data.color}
          secrets: \${string(size(creds))}
`;

const shared = (data: Record<string, string>) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace }, data });
const secret = (name: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels: { team } },
    stringData: { k: "v" },
  });
const getCm = (name: string) => kubectlJson<Obj>(["get", "configmap", name, "-n", namespace, "--show-managed-fields"]);
const getInstance = () => kubectlJson<Obj>(["get", plural, "r", "-n", namespace]);
const managers = (o: Obj) => (o.metadata.managedFields ?? []).map((f) => f.manager).sort();
const absent = (args: string[]) => expectAbsent([...args, "-n", namespace]);

describe("external references", { timeout: 180_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgdYaml());
    await eventually(
      async () => {
        assert.equal((await kubectlJson<Obj>(["get", "rgd", rgdName])).status?.state, "Active");
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("waits (IN_PROGRESS, not ERROR) until the referenced ConfigMap exists and is ready", async () => {
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: r, namespace: ${namespace} }\nspec: {}\n`,
    );
    await eventually(async () => {
      assert.equal((await getInstance()).status?.state, "IN_PROGRESS");
    });
    await absent(["configmap", "r-app"]);
    await kubectl(["apply", "-f", "-"], shared({ color: "blue", ready: "false" }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await absent(["configmap", "r-app"]);
    assert.equal((await getInstance()).status?.state, "IN_PROGRESS", "found but not ready is still waiting");
    await kubectl(["apply", "-f", "-"], shared({ color: "blue", ready: "true" }));
    const app = await eventually(() => getCm("r-app"), { timeout: 15_000 });
    assert.deepEqual(app.data, { color: "blue", secrets: "0" });
    await eventually(async () => {
      const o = await getInstance();
      assert.equal(o.status?.state, "ACTIVE");
      assert.equal(o.status.color, "blue");
    });
  });

  it("follows changes of the referenced object into children and status, never writing it", async () => {
    await kubectl(["apply", "-f", "-"], shared({ color: "green", ready: "true" }));
    const changed = await getCm("shared");
    await eventually(
      async () => {
        assert.equal((await getCm("r-app")).data?.color, "green");
      },
      { timeout: 15_000 },
    );
    await eventually(async () => {
      assert.equal((await getInstance()).status?.color, "green");
    });
    // Give the controller a chance to misbehave, then compare.
    tc.controller.resync();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await getCm("shared");
    assert.equal(
      after.metadata.resourceVersion,
      changed.metadata.resourceVersion,
      "the external object was not written",
    );
    assert.deepEqual(managers(after), ["kubectl-client-side-apply"]);
    assert.equal(after.metadata.labels, undefined, "no labels of ours on it");
    assert.ok(!tc.writes().some((r) => r.path.endsWith("/configmaps/shared")), "no write request ever targeted it");
  });

  it("reads an external collection by selector as matching objects come and go", async () => {
    await kubectl(["apply", "-f", "-"], secret("s1"));
    await kubectl(["apply", "-f", "-"], secret("s2"));
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "other", namespace, labels: { team: "someone-else" } },
      }),
    );
    await eventually(
      async () => {
        assert.equal((await getCm("r-app")).data?.secrets, "2");
      },
      { timeout: 15_000 },
    );
    await kubectl(["apply", "-f", "-"], secret("s3"));
    await eventually(
      async () => {
        assert.equal((await getCm("r-app")).data?.secrets, "3");
      },
      { timeout: 15_000 },
    );
    await kubectl(["delete", "secret", "s1", "-n", namespace]);
    await eventually(
      async () => {
        assert.equal((await getCm("r-app")).data?.secrets, "2");
        assert.equal((await getInstance()).status?.secrets, 2);
      },
      { timeout: 15_000 },
    );
    const s2 = await kubectlJson<Obj>(["get", "secret", "s2", "-n", namespace, "--show-managed-fields"]);
    assert.deepEqual(managers(s2), ["kubectl-client-side-apply"]);
  });

  it("deleting the instance leaves the external objects alone", async () => {
    await kubectl(["delete", plural, "r", "-n", namespace]);
    await absent(["configmap", "r-app"]);
    assert.equal((await getCm("shared")).data?.color, "green");
    await kubectlJson<Obj>(["get", "secret", "s2", "-n", namespace]);
  });
});
