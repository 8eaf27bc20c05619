/**
 * Per-instance policies on the real API server: a suspended instance is left alone (edits to its
 * children stay, spec changes wait) until unsuspended; author conditions replace the built-ins
 * on .status.conditions; two instances rendering the same child name cannot take each other's
 * object; an admission denial on a child shows in status and heals once the policy is gone.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, KubectlError } from "../support/test-cluster.js";
import { rgdHeader, letterSuffix, startTestController, type TestController } from "../support/controller.js";

type Cond = { type: string; status: string; reason?: string; message?: string };
interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  status?: { state?: string; conditions?: Cond[] } & Record<string, unknown>;
}

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const namespace = `pol-${suffix}`;
let tc: TestController;
const rgds: string[] = [];

async function defineRgd(name: string, kind: string, body: string): Promise<void> {
  rgds.push(name);
  await kubectl(
    ["apply", "-f", "-"],
    `
${rgdHeader(tc, name)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
${body}`,
  );
  await eventually(
    async () => {
      assert.equal((await kubectlJson<Obj>(["get", "rgd", name])).status?.state, "Active");
    },
    { timeout: 60_000 },
  );
}
const apply = (kind: string, name: string, spec: string, annotations = "{}") =>
  kubectl(
    ["apply", "-f", "-"],
    `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace}, annotations: ${annotations} }\nspec: ${spec}\n`,
  );
const getCm = (name: string) => kubectlJson<Obj>(["get", "configmap", name, "-n", namespace]);
const get = (plural: string, name: string) => kubectlJson<Obj>(["get", plural, name, "-n", namespace]);
const condition = (o: Obj, type: string) => (o.status?.conditions ?? []).find((c) => c.type === type);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("per-instance policies", { timeout: 240_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    if (rgds.length > 0) await kubectl(["delete", "rgd", ...rgds, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("leaves a suspended instance untouched and converges it once unsuspended", async () => {
    const kind = `Nap${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    await defineRgd(
      `nap-${suffix}`,
      kind,
      `    spec:
      value: string | default=a
  resources:
    - id: box
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-box" }
        data: { value: "\${schema.spec.value}" }
`,
    );
    await apply(kind, "nap", "{ value: a }");
    await eventually(async () => {
      assert.equal((await get(plural, "nap")).status?.state, "ACTIVE");
    });
    await apply(kind, "nap", "{ value: a }", `{ kro.run/reconcile: suspended }`);
    await eventually(async () => {
      const ready = condition(await get(plural, "nap"), "ResourcesReady");
      assert.equal(ready?.reason, "ReconciliationSuspended", JSON.stringify(ready));
    });
    const mark = tc.requests.length;
    await kubectl([
      "patch",
      "configmap",
      "nap-box",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"data":{"value":"edited"}}',
    ]);
    await apply(kind, "nap", "{ value: b }", `{ kro.run/reconcile: suspended }`);
    await sleep(2000);
    assert.equal((await getCm("nap-box")).data?.value, "edited", "the hand edit is not reverted while suspended");
    assert.deepEqual(
      tc
        .writes(mark)
        .filter((r) => r.path.includes("/configmaps/"))
        .map((r) => `${r.verb} ${r.path}`),
      [],
      "no child write while suspended",
    );
    assert.equal((await get(plural, "nap")).status?.state, "IN_PROGRESS");

    await apply(kind, "nap", "{ value: b }");
    await eventually(
      async () => {
        assert.equal((await getCm("nap-box")).data?.value, "b");
      },
      { timeout: 15_000 },
    );
    await eventually(async () => {
      assert.equal((await get(plural, "nap")).status?.state, "ACTIVE");
    });
  });

  it("shows author conditions (runtime.newCondition) instead of the built-ins", async () => {
    const kind = `Cond${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    await defineRgd(
      `cond-${suffix}`,
      kind,
      `    spec:
      phase: string | default=started
    status:
      phase: \${cfg.data.phase}
      conditions:
        - '\${runtime.newCondition({type: "Done", status: cfg.data.phase == "done" ? "True" : "False", reason: "Phase", message: "phase is " + cfg.data.phase})}'
        - '\${runtime.newCondition({type: "KroReady", status: runtime.condition(schema, "Ready").status, reason: "FromKro", message: "kro says " + runtime.condition(schema, "Ready").status})}'
  resources:
    - id: cfg
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-cfg" }
        data: { phase: "\${schema.spec.phase}" }
`,
    );
    await apply(kind, "c", "{}");
    const first = await eventually(async () => {
      const o = await get(plural, "c");
      assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
      assert.equal(condition(o, "KroReady")?.status, "True", JSON.stringify(o.status.conditions));
      return o;
    });
    assert.deepEqual(
      (first.status?.conditions ?? []).map((c) => c.type).sort(),
      ["Done", "KroReady"],
      "only author conditions are shown",
    );
    assert.deepEqual(condition(first, "Done"), {
      ...condition(first, "Done"),
      status: "False",
      reason: "Phase",
      message: "phase is started",
    });
    await apply(kind, "c", "{ phase: done }");
    await eventually(async () => {
      const done = condition(await get(plural, "c"), "Done");
      assert.equal(done?.status, "True");
      assert.equal(done.message, "phase is done");
    });
  });

  it("does not let a second instance take over an object the first one created", async () => {
    const kind = `Claim${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    await defineRgd(
      `claim-${suffix}`,
      kind,
      `    spec:
      target: string | required=true
  resources:
    - id: own
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-own" }
        data: { by: "\${schema.metadata.name}" }
    - id: claimed
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.spec.target}" }
        data: { by: "\${schema.metadata.name}" }
`,
    );
    await apply(kind, "first", "{ target: contested }");
    await eventually(async () => {
      assert.equal((await get(plural, "first")).status?.state, "ACTIVE");
    });
    const before = await getCm("contested");
    await apply(kind, "second", "{ target: contested }");
    const status = await eventually(async () => {
      const o = await get(plural, "second");
      assert.equal(o.status?.state, "ERROR", JSON.stringify(o.status));
      return o;
    });
    assert.match(
      condition(status, "ResourcesReady")?.message ?? "",
      /claimed: .*ConfigMap .*contested.*belongs to another instance \(Claim\w+\.kro\.run pol-\w+\/first\)/,
    );
    assert.equal((await getCm("second-own")).data?.by, "second", "the second instance's other children are applied");
    await sleep(1500);
    const afterwards = await getCm("contested");
    assert.equal(
      afterwards.metadata.resourceVersion,
      before.metadata.resourceVersion,
      "the first instance's object is unchanged",
    );
    assert.equal(afterwards.data?.by, "first");
    assert.equal((await get(plural, "first")).status?.state, "ACTIVE");

    // Deleting the loser must not delete the winner's object.
    await kubectl(["delete", plural, "second", "-n", namespace]);
    assert.equal((await getCm("contested")).metadata.uid, before.metadata.uid);
  });

  it("surfaces an admission denial on a child in status and recovers when the policy is removed", async () => {
    const kind = `Guard${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    const policy = `deny-forbidden-${suffix}`;
    await kubectl(
      ["apply", "-f", "-"],
      `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: ${policy} }
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }]
  validations:
    - expression: "!has(object.metadata.labels) || !('tier' in object.metadata.labels) || object.metadata.labels['tier'] != 'forbidden'"
      message: "tier=forbidden is not allowed here"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: ${policy} }
spec:
  policyName: ${policy}
  validationActions: [Deny]
  matchResources:
    namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: ${namespace} } }
`,
    );
    const removePolicy = () =>
      kubectl(["delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", policy, "--ignore-not-found"]);
    try {
      // The policy takes effect asynchronously: wait until the API server enforces it.
      await eventually(
        async () => {
          const probe = JSON.stringify({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "probe", namespace, labels: { tier: "forbidden" } },
          });
          await assert.rejects(
            kubectl(["apply", "--dry-run=server", "-f", "-"], probe),
            (e: unknown) => e instanceof KubectlError && /not allowed here/.test(e.stderr),
          );
        },
        { timeout: 30_000 },
      );
      await defineRgd(
        `guard-${suffix}`,
        kind,
        `    spec:
      tier: string | default=forbidden
  resources:
    - id: tagged
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-tagged", labels: { tier: "\${schema.spec.tier}" } }
        data: { v: "1" }
`,
      );
      await apply(kind, "g", "{}");
      const denied = await eventually(async () => {
        const o = await get(plural, "g");
        assert.equal(o.status?.state, "ERROR", JSON.stringify(o.status));
        return o;
      });
      assert.match(
        condition(denied, "ResourcesReady")?.message ?? "",
        /tagged: apply ConfigMap .*g-tagged.*tier=forbidden is not allowed here/,
      );
      await removePolicy();
      // Nothing about the instance changes: the retry (with backoff) alone must heal it.
      await eventually(
        async () => {
          assert.equal((await getCm("g-tagged")).metadata.labels?.tier, "forbidden");
        },
        { timeout: 45_000 },
      );
      await eventually(async () => {
        assert.equal((await get(plural, "g")).status?.state, "ACTIVE");
      });
    } finally {
      await removePolicy();
    }
  });
});
