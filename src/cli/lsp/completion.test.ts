import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { createKroCelEnvironment, type KroCelEnvironment } from "../../expr/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import { loadBuiltinSchemas } from "../inputs/index.js";
import { celFunctionCatalog, type CelFunctionCatalog } from "./cel-functions.js";
import { completionItems } from "./completion.js";
import { indexRgd, type RgdIndex } from "./rgd-index.js";

// A collection over a list of objects, a plain Deployment, and a readyWhen over `each`.
const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: regional
spec:
  schema:
    apiVersion: v1alpha1
    kind: Regional
    spec:
      name: string
      tags: "[]string"
      regions: "[]object"
      zones: "[]Zone"
    types:
      Zone:
        name: string
        replicas: integer
  resources:
    - id: deploy
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: \${schema.spec.name}
    - id: zonal
      forEach:
        - zone: \${schema.spec.zones}
      readyWhen:
        - \${each.status.readyReplicas > 0}
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: \${zone.name}
`;

describe("completion inside ${…}", () => {
  let rgd: RgdIndex;
  let resolver: SchemaResolver;
  let functions: CelFunctionCatalog;
  let env: KroCelEnvironment;
  before(async () => {
    const document = loadYaml("regional.yaml", RGD).documents[0];
    assert.ok(document !== undefined);
    rgd = indexRgd(document, RGD);
    resolver = await loadBuiltinSchemas("1.33");
    env = createKroCelEnvironment({});
    functions = celFunctionCatalog(env);
  });
  /** The items with the cursor just after `prefix`, written into the line that holds `anchor`. */
  const itemsAt = (anchor: string, prefix: string) => {
    const offset = RGD.indexOf(anchor);
    assert.ok(offset >= 0, anchor);
    return completionItems({ rgd, resolver, env, functions }, prefix, offset);
  };
  const labels = (items: { label: string }[]) => items.map((i) => i.label);

  it("offers ids, schema, namespaces and global functions at the start of a name, never internal ones", () => {
    const items = itemsAt("name: ${schema.spec.name}", "  name: ${");
    const found = labels(items);
    for (const name of ["deploy", "zonal", "schema", "lists", "optional", "size", "semver", "has"])
      assert.ok(found.includes(name), name);
    assert.ok(!found.some((l) => l.startsWith("kro")), "internal rewrite targets are not offered");
    assert.ok(!found.includes("zone"), "a forEach variable is not in scope outside its resource");
    const semver = items.find((i) => i.label === "semver");
    assert.equal(semver?.detail, "semver(string): kubernetes.Semver (+1 more)");
  });

  it("offers a forEach variable inside its resource, typed as an item of its list", () => {
    const items = itemsAt("name: ${zone.name}", "          name: ${");
    assert.equal(items.find((i) => i.label === "zone")?.detail, "forEach item (object)");
    assert.deepEqual(labels(itemsAt("name: ${zone.name}", "          name: ${zone.")), ["name", "replicas"]);
  });

  it("offers `each` in a collection's readyWhen, with the kind's fields", () => {
    const anchor = "${each.status";
    assert.ok(labels(itemsAt(anchor, "        - ${")).includes("each"));
    const fields = labels(itemsAt(anchor, "        - ${each.status."));
    assert.ok(fields.includes("readyReplicas") && fields.includes("availableReplicas"));
  });

  it("offers a string's functions after a string field, with their signatures", () => {
    const items = itemsAt("name: ${schema.spec.name}", "  name: ${schema.spec.name.");
    assert.ok(
      items.every((i) => i.kind === 2),
      "methods only: a string has no fields",
    );
    assert.equal(items.find((i) => i.label === "startsWith")?.detail, "string.startsWith(string): bool");
    assert.ok(!labels(items).includes("join"), "join is a list's");
    assert.ok(!labels(items).some((l) => l.startsWith("kro")), "internal rewrite targets are not offered");
  });

  it("offers list functions by element type, with macro arguments named", () => {
    const tags = labels(itemsAt("name: ${schema.spec.name}", "  x: ${schema.spec.tags."));
    assert.ok(tags.includes("join") && tags.includes("map") && tags.includes("size"));
    const zones = itemsAt("name: ${schema.spec.name}", "  x: ${schema.spec.zones.");
    assert.ok(!labels(zones).includes("join"), "join needs a list of strings");
    assert.match(zones.find((i) => i.label === "map")?.detail ?? "", /^list<dyn>\.map\(x, expr\): list<dyn>/);
  });

  it("offers a namespace's functions after its name, and an optional's after `.?`", () => {
    assert.ok(labels(itemsAt("name: ${schema.spec.name}", "  x: ${lists.")).includes("range"));
    const optional = labels(itemsAt("name: ${schema.spec.name}", "  x: ${deploy.status.?readyReplicas."));
    assert.ok(optional.includes("orValue") && optional.includes("hasValue"));
    assert.ok(!labels(itemsAt("name: ${schema.spec.name}", "  x: ${deploy.status.readyReplicas.")).includes("orValue"));
  });

  it("puts fields before functions", () => {
    const items = itemsAt("name: ${schema.spec.name}", "  x: ${deploy.metadata.labels.");
    assert.ok(
      items.some((i) => i.label === "size"),
      "a map's functions",
    );
    const sorted = [...items].sort((a, b) => (a.sortText ?? "").localeCompare(b.sortText ?? ""));
    assert.equal(sorted[0]?.kind, 2);
    const spec = itemsAt("name: ${schema.spec.name}", "  x: ${deploy.spec.");
    const first = [...spec].sort((a, b) => (a.sortText ?? "").localeCompare(b.sortText ?? ""))[0];
    assert.equal(first?.kind, 5, "a field sorts first");
  });
});
