import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import { loadBuiltinSchemas } from "../inputs/index.js";
import { indexRgd, type RgdIndex } from "./rgd-index.js";
import { templateKeyItems } from "./template-keys.js";

// `@` marks where the cursor is; the line it is on is being typed.
const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: app
spec:
  schema:
    apiVersion: v1alpha1
    kind: App
    spec:
      name: string
  resources:
    - id: deploy
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: \${schema.spec.name}
        spec:
          replicas: 1
          template:
            spec:
              containers:
                - name: web
                  image: nginx
    - id: svc
      template:
        apiVersion: v1
        kind: Service
        spec:
          ports:
            - port: 80
`;

describe("completion of template keys", () => {
  let resolver: SchemaResolver;
  before(async () => {
    resolver = await loadBuiltinSchemas("1.33");
  });
  /** The labels offered with `typed` written on a new line after the line holding `after`. */
  const offered = (after: string, typed: string): string[] => {
    const at = RGD.indexOf("\n", RGD.indexOf(after)) + 1;
    assert.ok(at > 0, after);
    const text = `${RGD.slice(0, at)}${typed}\n${RGD.slice(at)}`;
    // The index of the edited text, or of the text before the edit while the YAML is mid-typing
    // (`- ` alone is not an RGD), as the server keeps them.
    const edited = loadYaml("app.yaml", text);
    const [source, document] =
      edited.problems.length === 0 ? [text, edited.documents[0]] : [RGD, loadYaml("app.yaml", RGD).documents[0]];
    assert.ok(document !== undefined);
    const rgd: RgdIndex = indexRgd(document, source);
    const line = text.slice(0, at).split("\n").length - 1;
    return templateKeyItems(rgd, resolver, { text, line, linePrefix: typed, offset: at + typed.length }).map(
      (i) => i.label,
    );
  };

  it("offers the kind's fields at that place, without those already written", () => {
    const spec = offered("          replicas: 1", "          ");
    assert.ok(spec.includes("strategy") && spec.includes("selector"), JSON.stringify(spec));
    assert.ok(!spec.includes("replicas") && !spec.includes("template"), "written already");
    const top = offered("        kind: Deployment", "        ");
    assert.deepEqual(top.sort(), ["status"], "apiVersion, kind, metadata and spec are written");
  });

  it("follows list items and a pod template of the same name as the resource's", () => {
    const container = offered("                  image: nginx", "                  ");
    assert.ok(container.includes("ports") && container.includes("env"), JSON.stringify(container));
    assert.ok(!container.includes("name") && !container.includes("image"));
    const newItem = offered("                  image: nginx", "                - ");
    assert.ok(newItem.includes("name") && newItem.includes("image"), "a new item has nothing written yet");
  });

  it("reads the kind of the entry the cursor is in, also past its last line", () => {
    const port = offered("            - port: 80", "              ");
    assert.ok(port.includes("targetPort") && port.includes("protocol"), JSON.stringify(port));
  });

  it("offers nothing outside a template", () => {
    assert.deepEqual(offered("      name: string", "      "), []);
    assert.deepEqual(offered("    - id: deploy", "      "), []);
  });
});
