// The RGD's own CRD on the real API server: accepted, explainable, and enforcing kro's admission
// rules (docs/reference/kro-reference.md §2.1) plus the one-dialect-at-a-time rule.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { RGD, rgdCustomResourceDefinition } from "../../src/api/index.js";
import { eventually } from "../support/eventually.js";
import { KubectlError, kubectl } from "../support/test-cluster.js";

const rgd = (name: string, spec: unknown) =>
  JSON.stringify({ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", metadata: { name }, spec });
const celSpec = (schema: Record<string, unknown> = {}, resources: unknown[] = []) => ({
  schema: { apiVersion: "v1alpha1", kind: "WebApp", spec: { name: "string" }, ...schema },
  resources,
});

async function rejected(manifest: string, pattern: RegExp): Promise<void> {
  await assert.rejects(kubectl(["create", "-f", "-"], manifest), (error: unknown) => {
    assert.ok(error instanceof KubectlError);
    assert.match(error.stderr, pattern);
    return true;
  });
}

describe("ResourceGraphDefinition CRD", () => {
  const created: string[] = [];
  const name = (suffix: string) => {
    const n = `crdtest-${process.pid}-${suffix}`;
    created.push(n);
    return n;
  };

  before(async () => {
    await kubectl(
      ["apply", "--server-side", "--force-conflicts", "-f", "-"],
      JSON.stringify(rgdCustomResourceDefinition()),
    );
    await kubectl(["wait", "--for=condition=Established", "--timeout=30s", `crd/${RGD.crdName}`]);
  });
  after(async () => {
    for (const n of created) await kubectl(["delete", "rgd", n, "--ignore-not-found", "--wait=false"]);
  });

  it("is explainable field by field", async () => {
    // kubectl's discovery cache may predate the CRD; explain does not refresh it on a miss
    const explained = await eventually(() => kubectl(["explain", "rgd.spec.resources"]));
    assert.match(explained, /GROUP:\s+kro\.run/);
    assert.match(explained, /one node of the resource graph/i);
    assert.match(explained, /includeWhen\s+<\[\]string>/);
    const id = await kubectl(["explain", "rgd.spec.resources.id"]);
    assert.match(id, /lowerCamelCase/);
  });

  it("accepts a CEL-dialect RGD, defaults group and scope, and shows the printer columns", async () => {
    const n = name("cel");
    await kubectl(
      ["create", "-f", "-"],
      rgd(n, celSpec({}, [{ id: "cm", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } } }])),
    );
    const stored = JSON.parse(await kubectl(["get", "rgd", n, "-o", "json"])) as {
      spec: { schema: { group: string; scope: string } };
    };
    assert.equal(stored.spec.schema.group, "kro.run");
    assert.equal(stored.spec.schema.scope, "Namespaced");
    const table = await kubectl(["get", "rgd", n]);
    assert.match(table, /^NAME\s+APIVERSION\s+KIND\s+STATE\s+READY\s+AGE/m);
    assert.match(table, new RegExp(`^${n}\\s+v1alpha1\\s+WebApp`, "m"));
  });

  it("accepts a template-dialect RGD", async () => {
    await kubectl(
      ["create", "-f", "-"],
      rgd(name("tpl"), {
        resourceKind: { group: "kro.example.com", version: "v1", kind: "NginxApp" },
        childResources: [
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            nameTemplate: "{{.parent.metadata.name}}",
            template: "spec: {}\n",
          },
        ],
      }),
    );
  });

  it("accepts the seed's nginxapp-rgd.yaml verbatim", async () => {
    const file = fileURLToPath(new URL("../../../examples/nginx/nginxapp-rgd.yaml", import.meta.url));
    await kubectl(["apply", "--server-side", "--dry-run=server", "-f", file]);
  });

  const invalid: [what: string, spec: unknown, message: RegExp][] = [
    ["neither dialect", {}, /exactly one of spec\.schema or spec\.resourceKind must be provided/],
    [
      "both dialects",
      { ...celSpec(), resourceKind: { group: "g", version: "v1", kind: "K" } },
      /exactly one of spec\.schema or spec\.resourceKind/,
    ],
    ["schema with childResources", { ...celSpec(), childResources: [] }, /cannot be combined with childResources/],
    ["lower-case kind", celSpec({ kind: "webApp" }), /spec\.schema\.kind.*should match/],
    ["bad apiVersion", celSpec({ apiVersion: "1.0" }), /spec\.schema\.apiVersion.*should match/],
    ["unknown scope", celSpec({ scope: "Global" }), /Unsupported value: "Global"/],
    ["duplicate short names", celSpec({ shortNames: ["wa", "wa"] }), /Duplicate value/],
    [
      "template and externalRef",
      celSpec({}, [
        { id: "a", template: { kind: "X" }, externalRef: { apiVersion: "v1", kind: "X", metadata: { name: "x" } } },
      ]),
      /exactly one of template or externalRef must be provided/,
    ],
    [
      "externalRef with name and selector",
      celSpec({}, [{ id: "a", externalRef: { apiVersion: "v1", kind: "X", metadata: { name: "x", selector: {} } } }]),
      /exactly one of name or selector must be provided/,
    ],
    [
      "forEach entry with two iterators",
      celSpec({}, [{ id: "a", template: { kind: "X" }, forEach: [{ a: "${x}", b: "${y}" }] }]),
      /forEach\[0\].*must have at most 1 items|Too many: 2/,
    ],
    [
      "upper-case resource id",
      celSpec({}, [{ id: "Deploy", template: { kind: "X" } }]),
      /spec\.resources\[0\]\.id.*should match/,
    ],
    [
      "a rollout wave with two selections",
      { ...celSpec(), rollout: { waves: [{ name: "a", percent: 10, namespaces: ["x"] }] } },
      /a wave has at most one of selector, namespaces, clusters and percent/,
    ],
    [
      "a rollout wave of 0 %",
      { ...celSpec(), rollout: { waves: [{ name: "a", percent: 0 }] } },
      /spec\.rollout\.waves\[0\]\.percent.*should be greater than or equal to 1/,
    ],
    [
      "an unknown rollout failure mode",
      { ...celSpec(), rollout: { onFailure: "Retry" } },
      /Unsupported value: "Retry"/,
    ],
  ];
  for (const [what, spec, message] of invalid) {
    it(`rejects ${what}`, async () => {
      await rejected(rgd(`crdtest-${process.pid}-invalid`, spec), message);
    });
  }

  // What an editor's YAML server says from the published JSON Schema, against what the API server
  // says: the same for every mistake of structure; the CRD's CEL rules (which dialect, template or
  // externalRef, name or selector) are beyond JSON Schema, and there it accepts what the server
  // refuses — never the other way round.
  it("the published JSON Schema of RGD files gives the API server's verdict, except for its CEL rules", async () => {
    const schema = JSON.parse(
      readFileSync(
        fileURLToPath(new URL("../../../schemas/resourcegraphdefinition.schema.json", import.meta.url)),
        "utf8",
      ),
    ) as object;
    const validate = new Ajv({ strict: false }).compile(schema);
    const CEL_ONLY = new Set([
      "neither dialect",
      "both dialects",
      "schema with childResources",
      "template and externalRef",
      "externalRef with name and selector",
      "a rollout wave with two selections",
    ]);
    const cases: [string, unknown][] = [
      ...invalid.map(([what, spec]): [string, unknown] => [what, spec]),
      ["a valid CEL-dialect spec", celSpec({}, [{ id: "cm", template: { apiVersion: "v1", kind: "ConfigMap" } }])],
      ["an unknown key under spec.schema", celSpec({ bogus: 1 })],
      ["a misspelt resource key", celSpec({}, [{ idd: "a", template: { kind: "X" } }])],
      ["resources as a map", { ...celSpec(), resources: { a: 1 } }],
      ["a number for the kind", celSpec({ kind: 7 })],
      [
        "a valid rollout",
        {
          ...celSpec(),
          rollout: {
            waves: [
              { name: "canary", selector: { matchLabels: { canary: "true" } } },
              { name: "staging", namespaces: ["staging"] },
              { name: "a-tenth", percent: 10 },
              { name: "everyone" },
            ],
            maxUpdating: "20%",
            gate: { readyWithin: "10m", healthyWhen: ["${schema.status.ok}"] },
            pauseBetweenWaves: "1h30m",
            onFailure: "Rollback",
            pinning: { maxRevisionsBack: 2 },
          },
        },
      ],
      ["maxUpdating as a count", { ...celSpec(), rollout: { maxUpdating: 3 } }],
    ];
    const verdicts: string[] = [];
    for (const [what, spec] of cases) {
      const manifest = rgd(`crdtest-${process.pid}-json`, spec);
      const server = await kubectl(["create", "--dry-run=server", "-f", "-"], manifest).then(
        () => "accepted",
        (error: unknown) => {
          if (!(error instanceof KubectlError)) throw error;
          return "refused";
        },
      );
      const editor = validate(JSON.parse(manifest)) ? "accepted" : "refused";
      verdicts.push(`${what}: server ${server}, schema ${editor}`);
      if (CEL_ONLY.has(what)) assert.deepEqual([server, editor], ["refused", "accepted"], what);
      else assert.equal(editor, server, what);
    }
    assert.equal(verdicts.length, invalid.length + 7, verdicts.join("\n"));
  });

  it("keeps schema.kind immutable", async () => {
    const n = name("immutable");
    await kubectl(["create", "-f", "-"], rgd(n, celSpec()));
    await assert.rejects(
      kubectl(["patch", "rgd", n, "--type=merge", "-p", JSON.stringify({ spec: { schema: { kind: "OtherApp" } } })]),
      /kind is immutable/,
    );
  });
});
