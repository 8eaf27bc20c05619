import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { TextDocument } from "vscode-languageserver-textdocument";
import { createKroCelEnvironment } from "../../expr/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import { loadBuiltinSchemas } from "../inputs/index.js";
import { rangeAt, rangeOf } from "../../../test/unit-support/lsp/lsp-client.js";
import { analyze } from "./analysis.js";
import { toDiagnostics } from "./diagnostics.js";

const read = (path: string): string => readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8");
const NGINX = read("examples/nginx/nginxapp-rgd.yaml");

describe("toDiagnostics", () => {
  let resolver: SchemaResolver;
  before(async () => {
    resolver = await loadBuiltinSchemas("1.33");
  });
  const diagnose = (text: string): ReturnType<typeof toDiagnostics> => {
    const analysis = analyze("file:///x.yaml", 1, text, {
      resolver,
      env: createKroCelEnvironment({ enableRuntime: true }),
    });
    return toDiagnostics(analysis, TextDocument.create("file:///x.yaml", "yaml", 1, text));
  };

  it("has nothing to say about a valid template-dialect RGD", () => {
    assert.deepEqual(diagnose(NGINX), []);
  });

  it("puts a Go template's parse error at its line and column inside the block string", () => {
    const broken = NGINX.replace("{{- if .parent.spec.resources }}", "{{- if .parent.spec.resources }");
    const brace = broken.indexOf("{{- if .parent.spec.resources }") + "{{- if .parent.spec.resources ".length;
    assert.deepEqual(
      diagnose(broken).map((d) => [d.code, d.range]),
      [["template.parse-error", rangeAt(broken, brace, 1)]],
    );
  });

  it("underlines a field's whole value when no ${…} is named, and the key of a map", () => {
    const text = read("test/data/lsp/webapp-rgd.yaml").replace(
      "replicas: integer | default=2 minimum=1",
      "replicas: integr",
    );
    const [diagnostic] = diagnose(text);
    assert.equal(diagnostic?.code, "schema.unknown-type");
    assert.deepEqual(diagnostic.range, rangeOf(text, "replicas: integr"));
  });

  it("says nothing about a YAML file that holds no RGD, but reports its YAML errors", () => {
    assert.deepEqual(diagnose("apiVersion: v1\nkind: ConfigMap\n"), []);
    const [syntax] = diagnose("a: [1, 2\n");
    assert.equal(syntax?.code, "yaml.syntax");
  });
});
