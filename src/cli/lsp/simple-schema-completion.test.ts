import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { indexRgd } from "./rgd-index.js";
import { simpleSchemaItems } from "./simple-schema-completion.js";

const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: app
spec:
  schema:
    apiVersion: v1alpha1
    kind: App
    spec:
      name: string | required=true
      size: int
    types:
      Zone:
        name: string
    status:
      ready: \${deploy.status.readyReplicas}
  resources: []
`;

describe("completion in the SimpleSchema", () => {
  const rgd = (() => {
    const document = loadYaml("app.yaml", RGD).documents[0];
    assert.ok(document !== undefined);
    return indexRgd(document, RGD);
  })();
  /** Items with the cursor at the end of `line` (which must be in the fixture). */
  const items = (line: string) => {
    const offset = RGD.indexOf(line) + line.length;
    assert.ok(offset >= line.length, line);
    return simpleSchemaItems(rgd, line, offset);
  };

  it("offers the compiler's types and the RGD's own in a field's value", () => {
    const labels = items("      size: int").map((i) => i.label);
    for (const type of [
      "string",
      "integer",
      "boolean",
      "float",
      "object",
      "Zone",
      "[]string",
      "[]Zone",
      "map[string]integer",
    ])
      assert.ok(labels.includes(type), type);
    assert.ok(
      items("        name: string").some((i) => i.label === "Zone"),
      "in spec.schema.types too",
    );
  });

  it("offers markers after |, written as key=", () => {
    const markers = items("      name: string | required=true");
    assert.ok(markers.some((i) => i.label === "minimum" && i.insertText === "minimum="));
    assert.ok(markers.some((i) => i.label === "required" && i.insertText === "required=true"));
  });

  it("offers nothing in status, outside the schema, or on a key", () => {
    assert.deepEqual(items("      ready: ${deploy.status.readyReplicas}"), []);
    assert.deepEqual(items("    apiVersion: v1alpha1"), []);
    assert.deepEqual(items("      siz"), []);
  });
});
