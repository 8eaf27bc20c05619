// Offline as the API server and kro read an RGD: unknown fields under spec.schema are refused with
// their path, an explicit null on a declared field is absent, and templates may carry kro.run/
// annotations (kro v0.9 reserves only labels) but not the ones kro-ts keeps its own state in.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { loadYaml } from "../api/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { hasErrors } from "../diag/index.js";
import { compileRgd } from "./compile.js";
import { builtinSchemaResolver, type BuiltinSchemaBundle } from "./schema-resolver.js";

const root = new URL("../../../", import.meta.url);
const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
) as BuiltinSchemaBundle;
const resolver = builtinSchemaResolver(bundle);
const env = createKroCelEnvironment({ enableRuntime: true });
const webapp = loadYaml("webapp.yaml", readFileSync(new URL("test/fixtures/rgd/webapp.yaml", root), "utf8"))
  .documents[0]?.value;

interface Rgd {
  spec: {
    schema: Record<string, unknown> & { metadata?: Record<string, unknown> };
    resources: Record<string, unknown>[];
  };
}

function compileVariant(change: (rgd: Rgd) => void): ReturnType<typeof compileRgd> {
  const copy = structuredClone(webapp) as Rgd;
  change(copy);
  return compileRgd(copy, { resolver, env });
}

const errorsOf = (result: ReturnType<typeof compileRgd>): [string, string][] =>
  result.issues.filter((i) => i.severity === "error").map((i) => [i.code, i.path.join(".")]);

const annotate =
  (annotations: Record<string, string>) =>
  (r: Rgd): void => {
    const svc = r.spec.resources[1] as { template: { metadata: Record<string, unknown> } };
    svc.template.metadata.annotations = annotations;
  };

describe("an RGD offline as the API server reads it", () => {
  it("the unchanged example compiles", () => {
    assert.deepEqual(errorsOf(compileVariant(() => undefined)), []);
  });

  it("refuses an unknown field under spec.schema, with its path", () => {
    const result = compileVariant((r) => {
      r.spec.schema.stauts = { x: "${deploy.metadata.name}" };
      r.spec.schema.metadata = { labels: { team: "a" }, annotatoins: { b: "c" } };
    });
    assert.deepEqual(errorsOf(result), [
      ["rgd.unknown-field", "spec.schema.stauts"],
      ["rgd.unknown-field", "spec.schema.metadata.annotatoins"],
    ]);
    assert.match(
      result.issues[0]?.message ?? "",
      /unknown field "stauts" \(spec\.schema has apiVersion, kind, .*status/,
    );
  });

  it("reads an explicit null on a declared field as absent: status: null, template: null beside externalRef", () => {
    const result = compileVariant((r) => {
      r.spec.schema.status = null;
      r.spec.resources.push({
        id: "config",
        template: null,
        readyWhen: null,
        externalRef: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" } },
      });
    });
    assert.deepEqual(errorsOf(result), []);
    assert.ok(result.graph, "the RGD compiles");
  });

  it("keeps a null inside a template (a free-form part) for the template's own checks", () => {
    const result = compileVariant((r) => {
      const svc = r.spec.resources[1] as { template: Record<string, unknown> };
      svc.template.metadata = null;
    });
    assert.ok(hasErrors(result.issues));
  });

  it("accepts kro.run/ annotations in templates, as kro v0.9 does", () => {
    const result = compileVariant(
      annotate({ "kro.run/reconcile": "disabled", "kro.run/adopt": "true", "kro.run/allow-breaking-changes": "true" }),
    );
    assert.deepEqual(errorsOf(result), []);
  });

  it("still refuses kro.run/ labels and the annotations kro-ts keeps its state in", () => {
    for (const key of [
      "internal.kro.run/creation-key",
      "internal.kro.run/apply-order",
      "kro.run/cluster",
      "kro.run/delegated-by",
    ]) {
      assert.deepEqual(
        errorsOf(compileVariant(annotate({ [key]: "x" }))),
        [["rgd.reserved-label", `spec.resources.1.template.metadata.annotations.${key}`]],
        key,
      );
    }
    const labelled = compileVariant((r) => {
      const svc = r.spec.resources[1] as { template: { metadata: Record<string, unknown> } };
      svc.template.metadata.labels = { "kro.run/owned": "true" };
    });
    assert.deepEqual(errorsOf(labelled), [
      ["rgd.reserved-label", "spec.resources.1.template.metadata.labels.kro.run/owned"],
    ]);
  });
});
