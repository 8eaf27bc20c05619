import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { gunzipSync } from "node:zlib";
import { loadYaml } from "../../api/index.js";
import { formatPath, type Issue } from "../../diag/index.js";
import { compileRgd } from "../compile.js";
import {
  builtinSchemaResolver,
  chainResolvers,
  crdSchemaResolver,
  type BuiltinSchemaBundle,
} from "../schema-resolver.js";

const root = new URL("../../../../", import.meta.url);
const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
) as BuiltinSchemaBundle;
const resolver = builtinSchemaResolver(bundle);
const [nginxDoc] = loadYaml(
  "nginxapp-rgd.yaml",
  readFileSync(new URL("examples/nginx/nginxapp-rgd.yaml", root), "utf8"),
).documents;
assert.ok(nginxDoc);
const nginx = nginxDoc.value as Record<string, unknown>;

type Spec = Record<string, unknown> & {
  childResources: Record<string, unknown>[];
  statusMappings?: Record<string, unknown>[];
};

const cm = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  nameTemplate: "{{.parent.metadata.name}}",
  template: "data: {}\n",
  ...over,
});

function rgdOf(spec: Partial<Spec>): unknown {
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "t" },
    spec: { resourceKind: { group: "example.com", version: "v1", kind: "App" }, childResources: [cm()], ...spec },
  };
}

function nginxVariant(change: (spec: Spec) => void): unknown {
  const copy = structuredClone(nginx) as { spec: Spec };
  change(copy.spec);
  return copy;
}

/** Errors as [code, path, inner line, inner column] for compact assertions. */
function errors(rgd: unknown): [string, string, number?, number?][] {
  return compileRgd(rgd, { resolver })
    .issues.filter((i) => i.severity === "error")
    .map((i: Issue): [string, string, number?, number?] =>
      i.inner ? [i.code, formatPath(i.path), i.inner.line, i.inner.column] : [i.code, formatPath(i.path)],
    );
}

function messages(rgd: unknown): string[] {
  return compileRgd(rgd, { resolver }).issues.map((i) => i.message);
}

describe("compileRgd: the seed's NginxApp (template dialect)", () => {
  const result = compileRgd(nginx, { resolver });
  const graph = result.graph;

  it("compiles without issues into a template graph without a generated CRD", () => {
    assert.deepEqual(result.issues, []);
    assert.ok(graph);
    assert.equal(graph.dialect, "template");
    assert.equal(graph.crd, undefined);
    assert.equal(graph.name, "nginxapp-graph");
    assert.deepEqual(graph.instance, { group: "kro.example.com", version: "v1", kind: "NginxApp" });
  });

  it("derives ids from kinds, keeps author order and puts every child in wave 1", () => {
    assert.ok(graph);
    assert.deepEqual(
      graph.nodes.map((n) => [n.id, n.apiVersion, n.kind, n.namespaced, n.wave, n.dependencies]),
      [
        ["deployment", "apps/v1", "Deployment", true, 1, []],
        ["service", "v1", "Service", true, 1, []],
        ["ingress", "networking.k8s.io/v1", "Ingress", true, 1, []],
      ],
    );
    assert.deepEqual(graph.topologicalOrder, ["deployment", "service", "ingress"]);
  });

  it("carries the templates: body, name, condition", () => {
    assert.ok(graph);
    const [deployment, , ingress] = graph.nodes;
    assert.ok(deployment && ingress);
    assert.match(String(deployment.template), /^spec:\n {2}replicas: \{\{\.parent\.spec\.replicas\}\}\n/);
    assert.deepEqual(deployment.templateSource, {
      nameTemplate: "{{.parent.metadata.name}}",
      dependsOn: [],
      childReferences: [],
    });
    assert.deepEqual(deployment.includeWhen, []);
    assert.deepEqual(ingress.includeWhen, ["{{.parent.spec.ingress.enabled}}"]);
  });

  it("compiles the status mappings", () => {
    assert.ok(graph?.dialect === "template");
    assert.deepEqual(graph.statusMappings, [
      {
        index: 0,
        childResource: { kind: "Deployment", name: "{{.parent.metadata.name}}" },
        candidates: ["deployment"],
        conditions: [{ type: "Available", mappedType: "Ready" }],
        fieldMappings: [
          {
            child: ["status", "availableReplicas"],
            parent: ["availableReplicas"],
            childText: "status.availableReplicas",
            parentText: "status.availableReplicas",
          },
          {
            child: ["status", "readyReplicas"],
            parent: ["readyReplicas"],
            childText: "status.readyReplicas",
            parentText: "status.readyReplicas",
          },
        ],
      },
      {
        index: 1,
        childResource: { kind: "Service", name: "{{.parent.metadata.name}}" },
        candidates: ["service"],
        conditions: [],
        fieldMappings: [
          {
            child: ["spec", "clusterIP"],
            parent: ["serviceIP"],
            childText: "spec.clusterIP",
            parentText: "status.serviceIP",
          },
        ],
      },
    ]);
  });

  it("is frozen", () => {
    assert.ok(graph);
    assert.ok(Object.isFrozen(graph) && Object.isFrozen(graph.nodes[0]));
  });
});

describe("compileRgd (template dialect): dependencies", () => {
  it("turns .children references and dependsOn into edges, order and waves", () => {
    const result = compileRgd(
      rgdOf({
        childResources: [
          cm({
            id: "app",
            template: 'data:\n  ip: {{ .children.svc.spec.clusterIP }}\n  x: {{ index .children "db" }}\n',
          }),
          cm({ id: "svc", dependsOn: ["db"] }),
          cm({ id: "db" }),
          cm({
            id: "loose",
            template: "{{ range .parent.spec.items }}{{ .children.app }}{{ end }}{{ $.children.db }}",
          }),
        ],
      }),
    );
    assert.deepEqual(result.issues, []);
    const graph = result.graph;
    assert.ok(graph);
    assert.deepEqual(
      graph.nodes.map((n) => [n.id, n.dependencies, n.wave]),
      [
        ["app", ["svc", "db"], 3],
        ["svc", ["db"], 2],
        ["db", [], 1],
        ["loose", ["db"], 3],
      ],
    );
    assert.deepEqual(graph.topologicalOrder, ["db", "svc", "app", "loose"]);
    assert.deepEqual(
      graph.nodes.map((n) => n.templateSource?.childReferences),
      [["svc", "db"], [], [], ["db"]],
    );
    assert.deepEqual(
      graph.nodes.map((n) => n.templateSource?.dependsOn),
      [[], ["db"], [], []],
    );
  });

  it("rejects cycles, spelled out", () => {
    const rgd = rgdOf({
      childResources: [
        cm({ id: "a", dependsOn: ["b"] }),
        cm({ id: "b", template: "x: {{ .children.a.metadata.name }}" }),
      ],
    });
    assert.deepEqual(errors(rgd), [["graph.cycle", "spec.childResources"]]);
    assert.match(messages(rgd).join("\n"), /child resources form a cycle: a -> b -> a/);
  });

  it("rejects unknown and self references where they are written", () => {
    assert.deepEqual(
      errors(
        rgdOf({
          childResources: [
            cm({ id: "a", template: "data:\n  x: {{ .children.nope.spec }}\n" }),
            cm({ id: "b", dependsOn: ["a", "ghost"] }),
          ],
        }),
      ),
      [
        ["graph.unknown-child", "spec.childResources[0].template", 2, 9],
        ["graph.unknown-child", "spec.childResources[1].dependsOn[1]"],
      ],
    );
    assert.deepEqual(errors(rgdOf({ childResources: [cm({ id: "a", readyWhen: ["{{ .children.a.status }}"] })] })), [
      ["graph.self-reference", "spec.childResources[0].readyWhen[0]", 1, 4],
    ]);
    assert.deepEqual(errors(rgdOf({ childResources: [cm({ id: "a", dependsOn: ["a"] })] })), [
      ["graph.self-reference", "spec.childResources[0].dependsOn[0]"],
    ]);
  });
});

describe("compileRgd (template dialect): errors with their paths", () => {
  const cases: { name: string; rgd: unknown; expected: [string, string, number?, number?][]; message?: RegExp }[] = [
    {
      name: "missing resourceKind",
      rgd: rgdOf({ resourceKind: undefined }),
      expected: [["rgd.field-missing", "spec.resourceKind"]],
    },
    {
      name: "bad resourceKind fields",
      rgd: rgdOf({ resourceKind: { group: "nodot", version: "1", kind: "app" } }),
      expected: [
        ["rgd.invalid-group", "spec.resourceKind.group"],
        ["rgd.api-version", "spec.resourceKind.version"],
        ["rgd.kind-invalid", "spec.resourceKind.kind"],
      ],
    },
    {
      name: "childResources not a list",
      rgd: rgdOf({ childResources: {} as never }),
      expected: [["rgd.invalid-field", "spec.childResources"]],
    },
    {
      name: "a child that is not an object",
      rgd: rgdOf({ childResources: ["x" as never] }),
      expected: [["rgd.invalid-child", "spec.childResources[0]"]],
    },
    {
      name: "missing apiVersion, kind, nameTemplate and template",
      rgd: rgdOf({ childResources: [{}] }),
      expected: [
        ["rgd.field-missing", "spec.childResources[0].apiVersion"],
        ["rgd.kind-missing", "spec.childResources[0].kind"],
        ["rgd.field-missing", "spec.childResources[0].nameTemplate"],
        ["rgd.field-missing", "spec.childResources[0].template"],
      ],
    },
    {
      name: "bad apiVersion",
      rgd: rgdOf({ childResources: [cm({ apiVersion: "apps/version1" })] }),
      expected: [["rgd.invalid-api-version", "spec.childResources[0].apiVersion"]],
    },
    {
      name: "a template written as YAML instead of a string",
      rgd: rgdOf({ childResources: [cm({ template: { spec: {} } })] }),
      expected: [["rgd.invalid-field", "spec.childResources[0].template"]],
      message: /template must be a string holding a Go template, got object/,
    },
    {
      name: "template syntax error, with line and column inside the template",
      rgd: rgdOf({
        childResources: [cm(), cm({ id: "b", template: "spec:\n  replicas: {{ .parent.spec.replicas \n" })],
      }),
      expected: [["template.parse-error", "spec.childResources[1].template", 3, 1]],
      message: /template: b\.template:3: unclosed action started at b\.template:2/,
    },
    {
      name: "syntax error in nameTemplate",
      rgd: rgdOf({ childResources: [cm({ nameTemplate: "{{ .parent.metadata.name }" })] }),
      expected: [["template.parse-error", "spec.childResources[0].nameTemplate", 1, 26]],
    },
    {
      name: "syntax error in condition",
      rgd: rgdOf({ childResources: [cm({ condition: "{{ if }}" })] }),
      expected: [["template.parse-error", "spec.childResources[0].condition", 1, 7]],
    },
    {
      name: "undefined function in readyWhen",
      rgd: rgdOf({ childResources: [cm({ readyWhen: ["{{ true }}", "{{ isReady .self }}"] })] }),
      expected: [["template.parse-error", "spec.childResources[0].readyWhen[1]", 1, 4]],
      message: /function "isReady" not defined/,
    },
    {
      name: "a literal regex RE2 rejects, at the pattern",
      rgd: rgdOf({
        childResources: [cm({ template: 'data:\n  x: {{ regexMatch "a(?=b)" .parent.metadata.name }}\n' })],
      }),
      expected: [["template.invalid-regex", "spec.childResources[0].template", 2, 20]],
      message: /regexMatch: invalid regular expression "a\(\?=b\)"/,
    },
    {
      name: "readyWhen not a list",
      rgd: rgdOf({ childResources: [cm({ readyWhen: "{{ true }}" })] }),
      expected: [["rgd.invalid-field", "spec.childResources[0].readyWhen"]],
    },
    {
      name: "dependsOn not a list of strings",
      rgd: rgdOf({ childResources: [cm({ dependsOn: "x" })] }),
      expected: [["rgd.invalid-field", "spec.childResources[0].dependsOn"]],
    },
    {
      name: "an id that templates cannot spell",
      rgd: rgdOf({ childResources: [cm({ id: "my-id" })] }),
      expected: [["rgd.id-invalid", "spec.childResources[0].id"]],
    },
    {
      name: "two ConfigMaps without ids",
      rgd: rgdOf({ childResources: [cm(), cm({ nameTemplate: "other" })] }),
      expected: [["rgd.id-duplicate", "spec.childResources[1]"]],
      message:
        /duplicate child id "configMap": spec\.childResources\[0\] and spec\.childResources\[1\] both use it \(the id defaults/,
    },
    {
      name: "two explicit equal ids",
      rgd: rgdOf({ childResources: [cm({ id: "x" }), cm({ id: "x", kind: "Secret" })] }),
      expected: [["rgd.id-duplicate", "spec.childResources[1].id"]],
    },
    {
      name: "statusMappings not a list",
      rgd: rgdOf({ statusMappings: {} as never }),
      expected: [["rgd.invalid-field", "spec.statusMappings"]],
    },
    {
      name: "a mapping without childResource",
      rgd: rgdOf({ statusMappings: [{ conditions: [] }] }),
      expected: [["rgd.field-missing", "spec.statusMappings[0].childResource"]],
    },
    {
      name: "a mapping selecting no child",
      rgd: rgdOf({ statusMappings: [{ childResource: { kind: "Deployment" }, fieldMappings: [] }] }),
      expected: [["rgd.status-mapping-no-child", "spec.statusMappings[0].childResource.kind"]],
      message: /no child resource is a Deployment \(children: v1 ConfigMap\)/,
    },
    {
      name: "a mapping selecting two children without a name",
      rgd: rgdOf({
        childResources: [cm({ id: "a" }), cm({ id: "b" })],
        statusMappings: [{ childResource: { kind: "ConfigMap" }, fieldMappings: [] }],
      }),
      expected: [["rgd.status-mapping-ambiguous", "spec.statusMappings[0].childResource"]],
    },
    {
      name: "apiVersion narrows the selection",
      rgd: rgdOf({ statusMappings: [{ childResource: { kind: "ConfigMap", apiVersion: "v2" }, fieldMappings: [] }] }),
      expected: [["rgd.status-mapping-no-child", "spec.statusMappings[0].childResource.kind"]],
    },
    {
      name: "bad name template",
      rgd: rgdOf({ statusMappings: [{ childResource: { kind: "ConfigMap", name: "{{ .x" }, fieldMappings: [] }] }),
      expected: [["template.parse-error", "spec.statusMappings[0].childResource.name", 1, 6]],
    },
    {
      name: "parent outside status",
      rgd: rgdOf({
        statusMappings: [
          { childResource: { kind: "ConfigMap" }, fieldMappings: [{ child: "data.x", parent: "spec.x" }] },
        ],
      }),
      expected: [["rgd.invalid-path", "spec.statusMappings[0].fieldMappings[0].parent"]],
      message: /parent must start with "status\."/,
    },
    {
      name: "parent is status itself",
      rgd: rgdOf({
        statusMappings: [
          { childResource: { kind: "ConfigMap" }, fieldMappings: [{ child: "data.x", parent: "status" }] },
        ],
      }),
      expected: [["rgd.invalid-path", "spec.statusMappings[0].fieldMappings[0].parent"]],
    },
    {
      name: "parent with an index",
      rgd: rgdOf({
        statusMappings: [
          { childResource: { kind: "ConfigMap" }, fieldMappings: [{ child: "data.x", parent: "status.list[0]" }] },
        ],
      }),
      expected: [["rgd.invalid-path", "spec.statusMappings[0].fieldMappings[0].parent"]],
    },
    {
      name: "parent owned by the controller",
      rgd: rgdOf({
        statusMappings: [
          { childResource: { kind: "ConfigMap" }, fieldMappings: [{ child: "data.x", parent: "status.state" }] },
        ],
      }),
      expected: [["rgd.reserved-status-field", "spec.statusMappings[0].fieldMappings[0].parent"]],
    },
    {
      name: "malformed child path",
      rgd: rgdOf({
        statusMappings: [
          {
            childResource: { kind: "ConfigMap" },
            fieldMappings: [
              { child: "status..x", parent: "status.x" },
              { child: "a[x]", parent: "status.y" },
            ],
          },
        ],
      }),
      expected: [
        ["rgd.invalid-path", "spec.statusMappings[0].fieldMappings[0].child"],
        ["rgd.invalid-path", "spec.statusMappings[0].fieldMappings[1].child"],
      ],
    },
    {
      name: "missing child path",
      rgd: rgdOf({
        statusMappings: [{ childResource: { kind: "ConfigMap" }, fieldMappings: [{ parent: "status.x" }] }],
      }),
      expected: [["rgd.field-missing", "spec.statusMappings[0].fieldMappings[0].child"]],
    },
    {
      name: "two mappings writing overlapping targets",
      rgd: rgdOf({
        statusMappings: [
          {
            childResource: { kind: "ConfigMap" },
            fieldMappings: [
              { child: "data.x", parent: "status.a" },
              { child: "data.y", parent: "status.a.b" },
            ],
          },
        ],
      }),
      expected: [["rgd.status-mapping-duplicate", "spec.statusMappings[0].fieldMappings[1].parent"]],
    },
    {
      name: "a condition type mapped twice",
      rgd: rgdOf({
        statusMappings: [
          {
            childResource: { kind: "ConfigMap" },
            conditions: [{ type: "A", mapping: { type: "Ready" } }, { type: "Ready" }],
          },
        ],
      }),
      expected: [["rgd.status-mapping-duplicate", "spec.statusMappings[0].conditions[1]"]],
    },
    {
      name: "a condition mapping without type",
      rgd: rgdOf({
        statusMappings: [
          {
            childResource: { kind: "ConfigMap" },
            conditions: [{ mapping: { type: "Ready" } }, { type: "A", mapping: {} }],
          },
        ],
      }),
      expected: [
        ["rgd.invalid-field", "spec.statusMappings[0].conditions[0].type"],
        ["rgd.invalid-field", "spec.statusMappings[0].conditions[1].mapping.type"],
      ],
    },
    { name: "mixing dialects", rgd: rgdOf({ resources: [] }), expected: [["rgd.mixed-dialects", "spec"]] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(errors(c.rgd), c.expected);
      if (c.message) assert.match(messages(c.rgd).join("\n"), c.message);
    });
  }

  it("warns about unknown child fields and empty mappings, and still compiles", () => {
    const result = compileRgd(
      rgdOf({
        childResources: [cm({ includeWhen: ["x"] })],
        statusMappings: [{ childResource: { kind: "ConfigMap" } }],
      }),
    );
    assert.ok(result.graph);
    assert.deepEqual(
      result.issues.map((i) => [i.severity, i.code, formatPath(i.path)]),
      [
        ["warning", "rgd.unknown-field", "spec.childResources[0].includeWhen"],
        ["warning", "rgd.status-mapping-empty", "spec.statusMappings[0]"],
      ],
    );
  });

  it("reports every broken part of the seed RGD at once", () => {
    const broken = nginxVariant((spec) => {
      const [deployment, service] = spec.childResources;
      assert.ok(deployment && service);
      deployment.template = String(deployment.template).replace("{{.parent.spec.replicas}}", "{{.parent.spec.replicas");
      service.dependsOn = ["ingress"];
      spec.childResources.push({ ...service, id: "service" });
    });
    assert.deepEqual(errors(broken), [
      ["template.parse-error", "spec.childResources[0].template", 3, 3],
      ["rgd.id-duplicate", "spec.childResources[3].id"],
    ]);
    assert.match(messages(broken).join("\n"), /template: deployment\.template:3: function "selector" not defined/);
  });
});

describe("compileRgd (template dialect): .parent reads against the parent CRD", () => {
  const [crdDoc] = loadYaml(
    "nginxapp-crd.yaml",
    readFileSync(new URL("examples/nginx/nginxapp-crd.yaml", root), "utf8"),
  ).documents;
  assert.ok(crdDoc);
  const withCrd = chainResolvers(crdSchemaResolver([crdDoc.value]), resolver);
  const warnings = (rgd: unknown) =>
    compileRgd(rgd, { resolver: withCrd }).issues.map((i) => [
      i.severity,
      i.code,
      formatPath(i.path),
      i.inner?.line,
      i.inner?.column,
      i.message,
    ]);

  it("finds nothing wrong with the seed's RGD (free-form limits/requests included)", () => {
    assert.deepEqual(warnings(nginx), []);
  });

  it("warns about a misspelt spec field and about reading status, where they are written", () => {
    const typo = nginxVariant((spec) => {
      const [deployment, , ingress] = spec.childResources;
      assert.ok(deployment && ingress);
      deployment.template = String(deployment.template).replace(
        "{{.parent.spec.replicas}}",
        "{{.parent.spec.replica}}",
      );
      ingress.condition = "{{ and .parent.spec.ingress.enable .parent.status.ready }}";
    });
    assert.deepEqual(warnings(typo), [
      [
        "warning",
        "template.parent-unknown-field",
        "spec.childResources[0].template",
        2,
        15,
        ".parent.spec.replica is not in the schema of NginxApp (it has: replicas, image, service, ingress, resources); it would render <no value>",
      ],
      [
        "warning",
        "template.parent-unknown-field",
        "spec.childResources[2].condition",
        1,
        8,
        ".parent.spec.ingress.enable is not in the schema of NginxApp (it has: enabled, hosts); it would render <no value>",
      ],
      [
        "warning",
        "template.parent-status",
        "spec.childResources[2].condition",
        1,
        36,
        "templates cannot read .parent.status: the parent is given without its status (read a child's status as .children.<id>.status)",
      ],
    ]);
  });

  it("without the parent CRD, only status reads are flagged", () => {
    const rgd = rgdOf({
      childResources: [cm({ template: "a: {{ .parent.spec.anything }}{{ .parent.metadata.labels }}" })],
    });
    assert.deepEqual(
      compileRgd(rgd).issues.map((i) => i.code),
      [],
    );
    const status = rgdOf({ childResources: [cm({ template: "a: {{ .parent.status.x }}" })] });
    assert.deepEqual(
      compileRgd(status).issues.map((i) => i.code),
      ["template.parent-status"],
    );
  });
});

describe("compileRgd (template dialect): arbitrary input never crashes", () => {
  const childKeys = [
    "apiVersion",
    "kind",
    "id",
    "nameTemplate",
    "template",
    "condition",
    "dependsOn",
    "readyWhen",
  ] as const;
  const specKeys = ["resourceKind", "childResources", "statusMappings"] as const;

  it("any value in any child field or spec field gives issues with paths, or a graph", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...specKeys),
        fc.nat(3),
        fc.constantFrom(...childKeys),
        fc.anything(),
        fc.boolean(),
        (specKey, childIndex, childKey, value, inSpec) => {
          const rgd = nginxVariant((spec) => {
            if (inSpec) (spec as Record<string, unknown>)[specKey] = value;
            else {
              const child = spec.childResources[childIndex % spec.childResources.length];
              if (child) child[childKey] = value;
            }
          });
          const result = compileRgd(rgd, { resolver });
          for (const issue of result.issues)
            assert.ok(issue.path.length > 0 || issue.code === "rgd.not-an-object", `${issue.code} has no path`);
          assert.ok(result.graph !== undefined || result.issues.some((i) => i.severity === "error"));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("any template text parses into a graph or a located parse error", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const result = compileRgd(rgdOf({ childResources: [cm({ template: text })] }));
        const errors = result.issues.filter((i) => i.severity === "error");
        for (const e of errors) {
          assert.equal(formatPath(e.path), "spec.childResources[0].template");
          assert.ok(e.inner === undefined || (e.inner.line >= 1 && e.inner.column >= 1));
        }
      }),
      { numRuns: 500 },
    );
  });
});
