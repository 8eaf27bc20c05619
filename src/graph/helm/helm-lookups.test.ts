// Declared lookups (literal apiVersion and kind) found in chart templates, and the order edges
// from a looking-up template's children to the children of other templates creating that kind.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd } from "../compile.js";
import { addLookupEdges, helmLookupSites } from "./helm-lookups.js";

describe("helmLookupSites", () => {
  it("finds calls with literal apiVersion and kind, with their line and arguments as written", () => {
    const sites = helmLookupSites({
      "c/templates/a.yaml":
        'x: 1\n{{- $s := lookup "v1" "Secret" .Release.Namespace "db" }}\ny: {{ (lookup `apps/v1` `Deployment` "" "").items }}',
      "c/templates/_h.tpl": '{{ define "h" }}{{ lookup "v1" "ConfigMap" $ns (printf "%s" .x) }}{{ end }}',
    });
    assert.deepEqual(sites, [
      {
        template: "c/templates/_h.tpl",
        line: 1,
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "$ns",
        name: '(printf "%s" .x)',
      },
      {
        template: "c/templates/a.yaml",
        line: 2,
        apiVersion: "v1",
        kind: "Secret",
        namespace: ".Release.Namespace",
        name: '"db"',
      },
      {
        template: "c/templates/a.yaml",
        line: 3,
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: '""',
        name: '""',
      },
    ]);
  });

  it("ignores non-literal kinds and names that merely contain lookup", () => {
    assert.deepEqual(
      helmLookupSites({
        t: '{{ lookup .Values.api "Secret" "" "" }}{{ .Values.lookup }}{{ $lookup := 1 }}{{ mylookup "v1" "Secret" }}',
      }),
      [],
    );
  });
});

describe("lookup order edges", () => {
  const children = [
    { id: "secret", apiVersion: "v1", kind: "Secret", manifests: { name: "c/templates/secret.yaml" } },
    { id: "deploy", apiVersion: "apps/v1", kind: "Deployment", manifests: { name: "c/templates/deploy.yaml" } },
    { id: "deploySecret", apiVersion: "v1", kind: "Secret", manifests: { name: "c/templates/deploy.yaml" } },
  ];
  const site = (template: string, kind: string, apiVersion = "v1") => ({ template, line: 1, apiVersion, kind });

  it("orders a looking-up template's children after other templates' children of that kind (not its own)", () => {
    const dependencies = new Map<string, string[]>();
    assert.deepEqual(addLookupEdges(children, [site("c/templates/deploy.yaml", "Secret")], dependencies).skipped, []);
    assert.deepEqual(Object.fromEntries(dependencies), { deploy: ["secret"], deploySecret: ["secret"] });
  });

  it("leaves out an edge that would close a cycle and says which", () => {
    const dependencies = new Map<string, string[]>([["deploy", ["secret"]]]);
    const { skipped } = addLookupEdges(
      children,
      [site("c/templates/secret.yaml", "Deployment", "apps/v1")],
      dependencies,
    );
    assert.deepEqual(skipped, ["secret -> deploy"]);
    assert.deepEqual(dependencies.get("secret") ?? [], []);
  });

  it("the compiler adds the edges: a child that looks up a sibling's kind depends on it", () => {
    const result = compileRgd({
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "g" },
      spec: {
        resourceKind: { group: "t.example.com", version: "v1", kind: "EApp" },
        helm: {
          templates: {
            "c/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n",
            "c/templates/cm.yaml":
              'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {n: {{ (lookup "v1" "Secret" .Release.Namespace "s").metadata.name | quote }}}\n',
          },
          charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c", version: "1.0.0" }, files: {} }],
        },
        childResources: [
          { id: "cm", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/cm.yaml" },
          { id: "secret", apiVersion: "v1", kind: "Secret", manifests: "c/templates/secret.yaml" },
        ],
      },
    });
    assert.ok(result.graph, JSON.stringify(result.issues));
    assert.deepEqual(result.graph.nodes.find((n) => n.id === "cm")?.dependencies, ["secret"]);
    assert.deepEqual(result.graph.topologicalOrder, ["secret", "cm"]);
  });
});
