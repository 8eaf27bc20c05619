// Property tests of declared conversions: for generated, schema-valid instances of either version,
// A → hub → A gives A back (only empty objects, which carry no data, may vanish), including fields
// that exist on one side only and travel in the round-trip annotation; conversion never throws.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { loadYaml } from "../../api/index.js";
import { compileRgd } from "../../graph/index.js";
import { apiOfGraph, convertObject, type VersionedObject } from "./converter.js";

const root = new URL("../../../../", import.meta.url);
const rgd = loadYaml("rgd", readFileSync(new URL("examples/versions/webapp-v1beta1.yaml", root), "utf8")).documents[0]
  ?.value as {
  spec: {
    schema: {
      spec: Record<string, unknown>;
      versions: { spec: Record<string, unknown>; conversion: Record<string, unknown> }[];
    };
  };
};
// Fields beyond the example: identical maps and lists, and one field on each side only.
Object.assign(rgd.spec.schema.spec, { labels: "map[string]string", tags: "[]string", legacy: "string" });
const beta = rgd.spec.schema.versions[0];
assert.ok(beta);
Object.assign(beta.spec, { labels: "map[string]string", tags: "[]string", canary: "boolean" });
beta.conversion.roundTrip = { version: ["spec.canary"], hub: ["spec.legacy"] };
const compiled = compileRgd(rgd);
assert.deepEqual(
  compiled.issues.filter((i) => i.severity === "error"),
  [],
);
const api = compiled.graph === undefined ? undefined : apiOfGraph(compiled.graph);
assert.ok(api);

const text = fc.string({ maxLength: 8 });
const int = fc.integer({ min: -1_000_000, max: 1_000_000 });
const shared = {
  image: text,
  labels: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), text, { maxKeys: 3 }),
  tags: fc.array(text, { maxLength: 3 }),
};
const betaSpec = fc.record(
  {
    ...shared,
    ports: fc.record({ http: int }, { requiredKeys: [] }),
    owner: fc.record({ team: text }, { requiredKeys: [] }),
    canary: fc.boolean(),
  },
  { requiredKeys: [] },
);
const hubSpec = fc.record({ ...shared, port: int, team: text, legacy: text }, { requiredKeys: [] });
const metadata = fc.record(
  {
    name: fc.constant("x"),
    namespace: fc.constant("ns"),
    labels: fc.dictionary(fc.constantFrom("a", "b"), text, { maxKeys: 2 }),
  },
  { requiredKeys: ["name"] },
);
const object = (version: string, spec: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .record({ metadata, spec })
    .map((o): VersionedObject => ({ apiVersion: `kro.run/${version}`, kind: "EvolvingApp", ...o }));

/** Without the empty objects (and an annotations map left empty): they carry no data. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const kept = withoutEmpty(v);
    if (
      typeof kept === "object" &&
      kept !== null &&
      !Array.isArray(kept) &&
      Object.keys(kept).length === 0 &&
      k !== "labels"
    )
      continue;
    out[k] = kept;
  }
  return out;
}

describe("declared conversions, for generated instances", () => {
  it("v1beta1 → hub → v1beta1 is lossless", () => {
    fc.assert(
      fc.property(object("v1beta1", betaSpec), (o) => {
        const back = convertObject(api, convertObject(api, o, "v1alpha1"), "v1beta1");
        assert.deepEqual(withoutEmpty(back), withoutEmpty(o));
      }),
      { numRuns: 300 },
    );
  });

  it("hub → v1beta1 → hub is lossless", () => {
    fc.assert(
      fc.property(object("v1alpha1", hubSpec), (o) => {
        const back = convertObject(api, convertObject(api, o, "v1beta1"), "v1alpha1");
        assert.deepEqual(withoutEmpty(back), withoutEmpty(o));
      }),
      { numRuns: 300 },
    );
  });

  it("a field one side cannot hold is exactly what the round-trip annotation carries", () => {
    fc.assert(
      fc.property(object("v1beta1", betaSpec), (o) => {
        const hub = convertObject(api, o, "v1alpha1");
        const annotation = (hub.metadata?.annotations as Record<string, string> | undefined)?.[
          "conversion.kro.run/v1beta1"
        ];
        const canary = (o.spec as { canary?: boolean }).canary;
        assert.equal(annotation, canary === undefined ? undefined : JSON.stringify({ spec: { canary } }));
        assert.equal((hub.spec as { canary?: unknown }).canary, undefined);
      }),
      { numRuns: 200 },
    );
  });
});
