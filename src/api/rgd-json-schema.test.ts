// The published JSON Schema of RGD files: the committed file is what the CRD gives today, every
// RGD the project ships or tests with (both dialects) is valid against it, and the structural
// mistakes the API server refuses are refused here too, at the path an editor underlines. (The
// same verdicts against the real API server: test/integration/rgd-crd.test.ts.)
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { parseAllDocuments } from "yaml";
import { rgdJsonSchema } from "./rgd-json-schema.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FILE = path.join(ROOT, "schemas/resourcegraphdefinition.schema.json");

function rgdFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => path.join(dir, f))
    .filter((f) => readFileSync(path.join(ROOT, f), "utf8").includes("kind: ResourceGraphDefinition"));
}

function rgdsOf(file: string): unknown[] {
  return parseAllDocuments(readFileSync(path.join(ROOT, file), "utf8"))
    .map((d) => d.toJS() as unknown)
    .filter((d) => (d as { kind?: unknown } | null)?.kind === "ResourceGraphDefinition");
}

describe("the JSON Schema of RGD files", () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(rgdJsonSchema());

  it("is committed as the CRD gives it (npm run refresh:json-schema)", () => {
    assert.deepEqual(JSON.parse(readFileSync(FILE, "utf8")), rgdJsonSchema());
  });

  it("accepts every RGD of the examples and the test fixtures, in both dialects", () => {
    const files = [
      ...rgdFiles("examples"),
      ...rgdFiles("test/fixtures/kro-examples"),
      ...rgdFiles("test/fixtures/rgd"),
    ];
    const dialects = new Set<string>();
    let count = 0;
    for (const file of files)
      for (const rgd of rgdsOf(file)) {
        count++;
        dialects.add((rgd as { spec: { schema?: unknown } }).spec.schema === undefined ? "template" : "cel");
        assert.ok(validate(rgd), `${file}: ${JSON.stringify(validate.errors)}`);
      }
    assert.ok(count >= 15, `${count} RGDs`);
    assert.deepEqual([...dialects].sort(), ["cel", "template"]);
  });

  it("refuses what the API server refuses for its structure, naming the place (and takes a valid rollout)", () => {
    const [webapp] = rgdsOf("examples/webapp/webapp-rgd.yaml") as { spec: Record<string, unknown> }[];
    assert.ok(webapp !== undefined);
    const spec = webapp.spec as { schema: Record<string, unknown>; resources: Record<string, unknown>[] };
    const cases: [string, unknown, string][] = [
      [
        "an unknown key under spec.schema",
        { ...webapp, spec: { ...spec, schema: { ...spec.schema, bogus: 1 } } },
        "/spec/schema",
      ],
      [
        "a misspelt resource key",
        { ...webapp, spec: { ...spec, resources: [{ ...spec.resources[0], idd: "x" }] } },
        "/spec/resources/0",
      ],
      [
        "an upper-case resource id",
        { ...webapp, spec: { ...spec, resources: [{ ...spec.resources[0], id: "Deploy" }] } },
        "/spec/resources/0/id",
      ],
      [
        "a lower-case kind",
        { ...webapp, spec: { ...spec, schema: { ...spec.schema, kind: "webApp" } } },
        "/spec/schema/kind",
      ],
      ["resources as a map", { ...webapp, spec: { ...spec, resources: { a: 1 } } }, "/spec/resources"],
      [
        "a rollout wave of 0 %",
        { ...webapp, spec: { ...spec, rollout: { waves: [{ name: "a", percent: 0 }] } } },
        "/spec/rollout/waves/0/percent",
      ],
      [
        "an unknown rollout failure mode",
        { ...webapp, spec: { ...spec, rollout: { onFailure: "Retry" } } },
        "/spec/rollout/onFailure",
      ],
      [
        "a rollout deadline without a unit",
        { ...webapp, spec: { ...spec, rollout: { gate: { readyWithin: "10" } } } },
        "/spec/rollout/gate/readyWithin",
      ],
      [
        "maxUpdating as a list",
        { ...webapp, spec: { ...spec, rollout: { maxUpdating: [1] } } },
        "/spec/rollout/maxUpdating",
      ],
      ["another apiVersion", { ...webapp, apiVersion: "kro.run/v1" }, "/apiVersion"],
    ];
    const rollout = {
      waves: [
        { name: "canary", selector: { matchLabels: { canary: "true" } } },
        { name: "staging", namespaces: ["staging"] },
        { name: "a-tenth", percent: 10 },
        { name: "everyone" },
      ],
      maxUpdating: "20%",
      gate: { readyWithin: "10m", healthyWhen: ["${schema.status.available > 0}"] },
      pauseBetweenWaves: "1h30m",
      onFailure: "Rollback",
      pinning: { maxRevisionsBack: 2 },
    };
    assert.ok(validate({ ...webapp, spec: { ...spec, rollout } }), JSON.stringify(validate.errors));
    assert.ok(validate({ ...webapp, spec: { ...spec, rollout: { maxUpdating: 3 } } }), JSON.stringify(validate.errors));
    for (const [what, document, at] of cases) {
      assert.equal(validate(document), false, what);
      assert.ok(
        validate.errors?.some((e) => e.instancePath === at),
        `${what}: ${JSON.stringify(validate.errors?.map((e) => e.instancePath))}`,
      );
    }
  });
});
