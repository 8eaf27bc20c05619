// Generated CRDs against a real API server: each CRD comes from SimpleSchema through
// synthesizeCrd, is applied server-side, must become Established, and then the API server itself
// shows that defaults, enums, patterns, bounds, CEL rules and immutability work as kro intends.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import {
  classifyCrdUpdate,
  parseSimpleSchema,
  synthesizeCrd,
  type CrdSynthesisInput,
  type CustomResourceDefinition,
} from "../../src/schema/index.js";
import { eventually } from "../support/eventually.js";
import { KubectlError, kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";

type Instance = { spec: Record<string, unknown>; status?: unknown };

async function applyCrd(
  t: TestContext,
  input: Omit<CrdSynthesisInput, "specSchema">,
  spec: unknown,
  types?: unknown,
): Promise<CustomResourceDefinition> {
  const parsed = parseSimpleSchema(spec, { types });
  assert.deepEqual(parsed.issues, []);
  assert.ok(parsed.schema);
  const { crd, issues } = synthesizeCrd({ ...input, specSchema: parsed.schema });
  assert.deepEqual(issues, []);
  t.after(async () => {
    await kubectl(["delete", "crd", crd.metadata.name, "--wait=false", "--ignore-not-found"]);
  });
  await kubectl(["apply", "--server-side", "--field-manager=kro-ts-test", "-f", "-"], JSON.stringify(crd));
  // kubectl wait fails at once while the new CRD has no status.conditions yet ("accessor error:
  // <nil>"), so the condition is polled instead.
  await eventually(
    async () => {
      const live = await kubectlJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
        "get",
        "crd",
        crd.metadata.name,
      ]);
      assert.equal(live.status?.conditions?.find((c) => c.type === "Established")?.status, "True");
    },
    { timeout: 60_000 },
  );
  return crd;
}

async function rejected(manifest: unknown, pattern: RegExp): Promise<void> {
  await assert.rejects(kubectl(["create", "-f", "-"], JSON.stringify(manifest)), (error: unknown) => {
    assert.ok(error instanceof KubectlError);
    assert.match(error.stderr, pattern);
    return true;
  });
}

const WEBAPP_TYPES = {
  Port: {
    name: "string | required=true",
    port: "integer | required=true minimum=1 maximum=65535",
    protocol: 'string | default=TCP enum="TCP,UDP"',
  },
  ImageRef: 'string | pattern="^[a-z0-9./-]+(:[a-zA-Z0-9._-]+)?$"',
};
const WEBAPP_SPEC = {
  name: "string | required=true minLength=1 maxLength=40",
  image: "ImageRef | required=true",
  replicas: "integer | default=2 minimum=1 maximum=10",
  tier: 'string | default=web enum="web,worker" immutable=true',
  slug: `string | validation="self.startsWith('app-')" default=app-default`,
  ingress: { enabled: "boolean | default=false", host: "string", tls: { secretName: 'string | default=""' } },
  ports: "[]Port | listType=map listMapKey=name",
  env: "map[string]string",
  tags: "[]string | uniqueItems=true maxItems=3",
  extra: "object",
  ratio: "float | default=0.5 minimum=0 maximum=1",
};

describe("generated CRDs on a real API server", () => {
  it("a web app CRD: defaults applied, enum/pattern/bounds/CEL/immutability enforced", async (t) => {
    const ns = await testNamespace(t, "crd-webapp");
    const group = `${ns}.kro-test.example`;
    const crd = await applyCrd(
      t,
      {
        kind: "WebApp",
        version: "v1alpha1",
        group,
        statusFields: [
          { path: ["availableReplicas"], schema: { type: "integer" } },
          { path: ["endpoint", "url"], schema: { type: "string" } },
        ],
      },
      WEBAPP_SPEC,
      WEBAPP_TYPES,
    );
    assert.equal(crd.metadata.name, `webapps.${group}`);

    const webapp = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: `${group}/v1alpha1`,
      kind: "WebApp",
      metadata: { name, namespace: ns },
      spec,
    });
    await kubectl(
      ["create", "-f", "-"],
      JSON.stringify(
        webapp("minimal", {
          name: "shop",
          image: "nginx:1.27",
          ports: [{ name: "http", port: 80 }],
          extra: { free: { form: [1, "x"] } },
        }),
      ),
    );
    const stored = await kubectlJson<Instance>(["get", "-n", ns, "webapps", "minimal"]);
    assert.deepEqual(stored.spec, {
      name: "shop",
      image: "nginx:1.27",
      replicas: 2,
      tier: "web",
      slug: "app-default",
      ratio: 0.5,
      ingress: { enabled: false, tls: { secretName: "" } },
      ports: [{ name: "http", port: 80, protocol: "TCP" }],
      extra: { free: { form: [1, "x"] } },
    });

    const base = { name: "shop", image: "nginx:1.27" };
    await rejected(webapp("bad-enum", { ...base, tier: "db" }), /spec\.tier: Unsupported value: "db"/);
    await rejected(
      webapp("bad-pattern", { ...base, image: "Not An Image" }),
      /spec\.image: Invalid value: "Not An Image": spec\.image in body should match/,
    );
    await rejected(
      webapp("bad-max", { ...base, replicas: 11 }),
      /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/,
    );
    await rejected(
      webapp("bad-cel", { ...base, slug: "shop" }),
      /spec\.slug: Invalid value: "string": validation failed/,
    );
    await rejected(webapp("bad-required", { image: "nginx" }), /spec\.name: Required value/);
    await rejected(
      webapp("bad-length", { ...base, name: "" }),
      /spec\.name: Invalid value: "": spec\.name in body should be at least 1 chars long/,
    );
    await rejected(
      webapp("bad-port", { ...base, ports: [{ name: "x", port: 0 }] }),
      /spec\.ports\[0\]\.port: Invalid value: 0/,
    );
    await rejected(
      webapp("dup-port", {
        ...base,
        ports: [
          { name: "x", port: 1 },
          { name: "x", port: 2 },
        ],
      }),
      /spec\.ports\[1\]: Duplicate value/,
    );
    await rejected(webapp("dup-tag", { ...base, tags: ["a", "a"] }), /spec\.tags\[1\]: Duplicate value: "a"/);
    await rejected(
      webapp("bad-proto", { ...base, ports: [{ name: "x", port: 1, protocol: "SCTP" }] }),
      /spec\.ports\[0\]\.protocol: Unsupported value: "SCTP"/,
    );

    await assert.rejects(
      kubectl([
        "patch",
        "-n",
        ns,
        "webapps",
        "minimal",
        "--type=merge",
        "-p",
        JSON.stringify({ spec: { tier: "worker" } }),
      ]),
      (error: unknown) =>
        error instanceof KubectlError && /spec\.tier: Invalid value: "string": field is immutable/.test(error.stderr),
    );
    await kubectl([
      "patch",
      "-n",
      ns,
      "webapps",
      "minimal",
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { replicas: 3 } }),
    ]);

    const table = await kubectl(["get", "-n", ns, "webapps"]);
    assert.match(table.split("\n")[0] ?? "", /^NAME\s+STATE\s+READY\s+AGE$/, "kro's default printer columns");

    // The status schema accepts the inferred fields and kro's own state/conditions.
    const status = {
      availableReplicas: 2,
      endpoint: { url: "http://shop" },
      state: "ACTIVE",
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Ready",
          message: "",
          lastTransitionTime: "2026-01-01T00:00:00Z",
          observedGeneration: 1,
        },
      ],
    };
    await kubectl([
      "patch",
      "-n",
      ns,
      "webapps",
      "minimal",
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status }),
    ]);
    assert.deepEqual((await kubectlJson<Instance>(["get", "-n", ns, "webapps", "minimal"])).status, status);
    assert.match(await kubectl(["get", "-n", ns, "webapps", "minimal", "--no-headers"]), /^minimal\s+ACTIVE\s+True\s+/);

    // Read back from the server, the CRD differs from ours in nothing the classifier cares about.
    const live = await kubectlJson<CustomResourceDefinition>(["get", "crd", crd.metadata.name]);
    assert.deepEqual(classifyCrdUpdate(live, crd), { breaking: [], nonBreaking: [] });
    assert.deepEqual(live.spec.versions[0]?.schema.openAPIV3Schema, crd.spec.versions[0]?.schema.openAPIV3Schema);
  });

  it("a cluster-scoped CRD with nested arrays of objects, maps of objects and custom printer columns", async (t) => {
    const ns = await testNamespace(t, "crd-platform");
    const group = `${ns}.kro-test.example`;
    const crd = await applyCrd(
      t,
      {
        kind: "PlatformPolicy",
        version: "v1beta1",
        group,
        scope: "Cluster",
        shortNames: ["pp"],
        categories: ["kro-test"],
        additionalPrinterColumns: [{ name: "Owner", type: "string", jsonPath: ".spec.owner.team" }],
      },
      {
        owner: "Owner | required=true",
        rules: "[]Rule | minItems=1",
        quotas: "map[string]Quota",
        matrix: "[][]integer",
        settings: { retries: "integer | default=3", backoff: { seconds: "float | default=1.5" } },
      },
      {
        Owner: { team: "string | required=true", contact: 'string | pattern="^[^@]+@[^@]+$"' },
        Rule: {
          action: 'string | required=true enum="allow,deny"',
          targets: "[]Target",
          priority: "integer | default=100",
        },
        Target: { kind: "string | required=true", names: "[]string | default=[]" },
        Quota: { cpu: 'string | default="1"', memory: "string" },
      },
    );
    assert.equal(crd.metadata.name, `platformpolicies.${group}`);
    assert.equal(crd.spec.scope, "Cluster");

    const name = `${ns}-policy`;
    // No cleanup of its own: deleting the CRD (applyCrd's after hook) deletes its objects.
    const policy = (spec: Record<string, unknown>, suffix = "") => ({
      apiVersion: `${group}/v1beta1`,
      kind: "PlatformPolicy",
      metadata: { name: name + suffix },
      spec,
    });
    await kubectl(
      ["create", "-f", "-"],
      JSON.stringify(
        policy({
          owner: { team: "infra" },
          rules: [{ action: "allow", targets: [{ kind: "Pod" }] }],
          quotas: { small: { memory: "1Gi" } },
          matrix: [[1, 2], [3]],
        }),
      ),
    );
    const stored = await kubectlJson<Instance>(["get", `platformpolicies.${group}`, name]);
    assert.deepEqual(stored.spec, {
      owner: { team: "infra" },
      rules: [{ action: "allow", priority: 100, targets: [{ kind: "Pod", names: [] }] }],
      quotas: { small: { cpu: "1", memory: "1Gi" } },
      matrix: [[1, 2], [3]],
      settings: { retries: 3, backoff: { seconds: 1.5 } },
    });
    assert.match(
      (await kubectl(["get", "pp", name])).split("\n")[0] ?? "",
      /^NAME\s+OWNER$/,
      "author columns replace kro's",
    );

    await rejected(
      policy({ owner: { team: "x" }, rules: [] }, "-empty"),
      /spec\.rules: Invalid value: 0: spec\.rules in body should have at least 1 items/,
    );
    await rejected(
      policy({ owner: { team: "x" }, rules: [{ action: "maybe" }] }, "-action"),
      /spec\.rules\[0\]\.action: Unsupported value: "maybe"/,
    );
    await rejected(
      policy({ owner: { contact: "nobody" }, rules: [{ action: "deny" }] }, "-owner"),
      /spec\.owner\.team: Required value/,
    );
    await rejected(
      policy({ owner: { team: "x", contact: "no-at-sign" }, rules: [{ action: "deny" }] }, "-contact"),
      /spec\.owner\.contact: Invalid value: "no-at-sign"/,
    );
  });
});
