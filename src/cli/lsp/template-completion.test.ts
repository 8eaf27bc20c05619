// The template dialect in the editor, on the nginx example (its RGD and its CRD): completion inside
// {{…}} from the parent's CRD and the children's kinds, and navigation between child ids.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { createKroCelEnvironment } from "../../expr/index.js";
import { schemaResolverFor } from "../inputs/index.js";
import { analyze, type Analysis } from "./analysis.js";
import { celFunctionCatalog } from "./cel-functions.js";
import { hoverAt } from "./hover.js";
import { definitionAt, referencesAt } from "./navigation.js";
import type { RgdScope } from "./rgd-scope.js";
import { templateCompletionContext, templateCompletionItems } from "./template-completion.js";

const EXAMPLE = new URL("../../../../examples/nginx/", import.meta.url);
// The Ingress also reads the Service it depends on.
const TEXT = readFileSync(new URL("nginxapp-rgd.yaml", EXAMPLE), "utf8")
  .replace(
    '      condition: "{{.parent.spec.ingress.enabled}}"\n',
    '      condition: "{{.parent.spec.ingress.enabled}}"\n      dependsOn: [service]\n      readyWhen: ["{{ .self.status.loadBalancer }}"]\n',
  )
  .replace(
    "        spec:\n          rules:",
    "        metadata:\n          annotations:\n            ip: {{ .children.service.spec.clusterIP }}\n        spec:\n          rules:",
  );

describe("the template dialect in the editor", () => {
  let scope: RgdScope;
  let analysis: Analysis;
  before(async () => {
    // The CRD as the controller leaves it, with a status schema: templates still must not see it.
    const crd = readFileSync(new URL("nginxapp-crd.yaml", EXAMPLE), "utf8").replace(
      "          properties:\n            spec:",
      "          properties:\n            status:\n              type: object\n              x-kubernetes-preserve-unknown-fields: true\n            spec:",
    );
    assert.match(crd, /status:/);
    const crdFile = path.join(mkdtempSync(path.join(tmpdir(), "kro-lsp-")), "crd.yaml");
    writeFileSync(crdFile, crd);
    const resolver = await schemaResolverFor("1.33", [crdFile]);
    const env = createKroCelEnvironment({ enableRuntime: true });
    analysis = analyze("file:///nginx.yaml", 1, TEXT, { resolver, env });
    assert.deepEqual(analysis.compiled.located, [], "the edited example compiles");
    const rgd = analysis.rgds[0];
    assert.ok(rgd !== undefined);
    assert.equal(rgd.dialect, "template");
    scope = { rgd, resolver, env, functions: celFunctionCatalog(env) };
  });
  const labels = (prefix: string, anchor = "replicas: {{") => {
    const offset = TEXT.indexOf(anchor);
    assert.ok(offset >= 0, anchor);
    return (templateCompletionItems(scope, prefix, offset) ?? []).map((i) => i.label);
  };

  it("reads the chain at the cursor only inside an open {{", () => {
    assert.deepEqual(templateCompletionContext("  replicas: {{.parent.spec.rep"), {
      chain: ["parent", "spec"],
      typed: "rep",
    });
    assert.deepEqual(templateCompletionContext("  x: {{ $.parent."), { chain: ["parent"], typed: "" });
    assert.deepEqual(templateCompletionContext("  x: {{ ."), { chain: [], typed: "" });
    assert.deepEqual(templateCompletionContext("  x: {{ def"), { typed: "def" });
    assert.equal(templateCompletionContext("  x: {{ .a }} .parent."), undefined);
    assert.equal(templateCompletionContext("  x: .parent."), undefined);
  });

  it("offers the parent's fields from its CRD, never its status", () => {
    assert.deepEqual(labels("  x: {{ ."), ["parent", "children"]);
    const top = labels("  x: {{ .parent.");
    assert.ok(top.includes("spec") && top.includes("metadata"));
    assert.ok(!top.includes("status"), "templates are given the parent without its status");
    assert.deepEqual(labels("  x: {{ .parent.spec.image."), ["repository", "tag", "pullPolicy"]);
    assert.ok(labels("  x: {{ .parent.metadata.").includes("labels"));
  });

  it("offers child ids, their kinds' fields, and self in a readyWhen", () => {
    assert.deepEqual(labels("  x: {{ .children."), ["deployment", "service", "ingress"]);
    assert.ok(labels("  x: {{ .children.service.spec.").includes("clusterIP"));
    const inReadyWhen = "{{ .self.status";
    assert.ok(labels("  - {{ .", inReadyWhen).includes("self"));
    assert.ok(labels("  - {{ .self.status.", inReadyWhen).includes("loadBalancer"), "an Ingress's status");
    assert.ok(!labels("  x: {{ .").includes("self"), "self only in a readyWhen");
  });

  it("offers template functions for a bare word", () => {
    const functions = labels("  x: {{ ");
    for (const name of ["default", "printf", "toYaml", "quote", "eq"]) assert.ok(functions.includes(name), name);
  });

  it("hovers a field of the parent or a child, and a child id", () => {
    const at = (needle: string, within: number) => hoverAt(scope, TEXT, TEXT.indexOf(needle) + within)?.markdown;
    assert.equal(at("{{.parent.spec.replicas}}", 17), "**replicas** `integer`");
    assert.equal(at(".children.service.spec.clusterIP", 26), "**clusterIP** `string`");
    assert.equal(at(".children.service.spec", 11), "**service** — child `Service` (v1), as observed");
    assert.equal(at("{{.parent.spec.replicas}}", 0), undefined, "nothing on the braces");
  });

  it("goes from .children.<id> and a dependsOn entry to the child, and finds both reads", () => {
    // The Service's id is its default, `service`: the definition is its `kind: Service`.
    const kind = TEXT.indexOf("Service", TEXT.indexOf("kind: Service"));
    const read = TEXT.indexOf("service.spec.clusterIP");
    const dependsOn = TEXT.indexOf("[service]") + 1;
    for (const from of [read + 2, dependsOn + 1])
      assert.deepEqual(definitionAt(analysis, from), { start: kind, end: kind + "Service".length });
    assert.deepEqual(referencesAt(analysis, kind, false), [
      { start: dependsOn, end: dependsOn + "service".length },
      { start: read, end: read + "service".length },
    ]);
  });
});
