import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd } from "../compile.js";

const root = new URL("../../../../", import.meta.url);
const env = createKroCelEnvironment({ enableRuntime: true });
const load = (file: string) =>
  loadYaml(file, readFileSync(new URL(`examples/versions/${file}`, root), "utf8")).documents[0]?.value as Record<
    string,
    unknown
  >;
type Rgd = { spec: { schema: Record<string, unknown> & { versions: Record<string, unknown>[] } } };
const two = load("webapp-v1beta1.yaml");
const variant = (change: (rgd: Rgd) => void): unknown => {
  const copy = structuredClone(two) as Rgd;
  change(copy);
  return copy;
};
const compile = (rgd: unknown) => compileRgd(rgd, { env });
const errors = (rgd: unknown) => compile(rgd).issues.filter((i) => i.severity === "error");
const conversion = (rgd: Rgd) =>
  rgd.spec.schema.versions[0]?.conversion as {
    toHub: { spec: Record<string, unknown> };
    fromHub: { spec: Record<string, unknown> };
    roundTrip?: unknown;
  };

describe("spec.schema.versions: the RGD shape", () => {
  it("an RGD without versions means what it means in kro v0.9: one served storage version, no conversion", () => {
    const result = compile(load("webapp-v1alpha1.yaml"));
    assert.deepEqual(
      result.issues.filter((i) => i.severity === "error"),
      [],
    );
    if (result.graph?.dialect !== "cel") return assert.fail("no CEL graph");
    assert.equal(result.graph.versions, undefined);
    assert.deepEqual(
      result.graph.crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.deprecated]),
      [["v1alpha1", true, true, undefined]],
    );
    assert.equal(result.graph.crd.spec.conversion, undefined);
  });

  it("extra versions become CRD versions with their own schema, one storage version, webhook conversion", () => {
    const result = compile(two);
    assert.deepEqual(
      result.issues.filter((i) => i.severity === "error"),
      [],
    );
    if (result.graph?.dialect !== "cel") return assert.fail("no graph");
    const crd = result.graph.crd;
    assert.deepEqual(
      crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false]),
      [
        ["v1alpha1", true, false, true],
        ["v1beta1", true, true, false],
      ],
    );
    assert.match(crd.spec.versions[0]?.deprecationWarning ?? "", /use kro.run\/v1beta1/);
    assert.deepEqual(
      Object.keys(crd.spec.versions[1]?.schema.openAPIV3Schema.properties?.spec?.properties ?? {}).sort(),
      ["image", "owner", "ports"],
    );
    assert.deepEqual(
      crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.status,
      crd.spec.versions[1]?.schema.openAPIV3Schema.properties?.status,
      "status is the hub's in every version",
    );
    assert.deepEqual(crd.spec.conversion, { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"] } });
    assert.equal(result.graph.versions?.storage, "v1beta1");
    assert.equal(result.graph.instance.version, "v1alpha1", "the graph reads the hub");
  });

  it("a hub field that fromHub drops is reported at its declaration, unless roundTrip keeps it", () => {
    const lossy = variant((rgd) => {
      delete (conversion(rgd).fromHub.spec.owner as Record<string, unknown>).team;
    });
    const found = errors(lossy);
    assert.deepEqual(
      found.map((i) => [i.code, i.path.join(".")]),
      [["rgd.conversion-lossy", "spec.schema.spec.team"]],
    );
    assert.match(
      found[0]?.message ?? "",
      /spec\.team of v1alpha1 is lost converting to v1beta1: map it in spec\.schema\.versions\[0\]\.conversion\.fromHub, or list "spec\.team" in spec\.schema\.versions\[0\]\.conversion\.roundTrip\.hub/,
    );
    const kept = variant((rgd) => {
      delete (conversion(rgd).fromHub.spec.owner as Record<string, unknown>).team;
      conversion(rgd).roundTrip = { hub: ["spec.team"] };
    });
    // v1beta1's owner.team still has no place it comes from, but nothing is lost.
    assert.deepEqual(errors(kept), []);
  });

  it("a version field that toHub drops is reported in the version's spec", () => {
    const lossy = variant((rgd) => {
      (rgd.spec.schema.versions[0]?.spec as Record<string, unknown>).canary = "boolean";
    });
    assert.deepEqual(
      errors(lossy).map((i) => [i.code, i.path.join(".")]),
      [["rgd.conversion-lossy", "spec.schema.versions.0.spec.canary"]],
    );
    const kept = variant((rgd) => {
      (rgd.spec.schema.versions[0]?.spec as Record<string, unknown>).canary = "boolean";
      conversion(rgd).roundTrip = { version: ["spec.canary"] };
    });
    assert.deepEqual(errors(kept), []);
  });

  it("type-checks each expression against the source schema and the target field", () => {
    const wrongType = variant((rgd) => {
      conversion(rgd).toHub.spec.port = "${self.spec.owner.team}";
    });
    const found = errors(wrongType);
    assert.ok(
      found.some(
        (i) =>
          i.code === "expr.type-mismatch" && i.path.join(".") === "spec.schema.versions.0.conversion.toHub.spec.port",
      ),
      JSON.stringify(found),
    );
    const noSuchSource = variant((rgd) => {
      conversion(rgd).toHub.spec.port = "${self.spec.port}";
    });
    assert.ok(
      errors(noSuchSource).some(
        (i) => i.code === "expr.type-error" && i.path.join(".") === "spec.schema.versions.0.conversion.toHub.spec.port",
      ),
    );
    const noSuchTarget = variant((rgd) => {
      conversion(rgd).toHub.spec.replicas = "${self.spec.ports.http}";
    });
    assert.ok(
      errors(noSuchTarget).some(
        (i) => i.code === "rgd.conversion-unknown-field" && /spec\.replicas is not a field of v1alpha1/.test(i.message),
      ),
    );
  });

  it("refuses two storage versions, a version named like the hub, and unknown keys", () => {
    const twoStorage = variant((rgd) => {
      rgd.spec.schema.versions.push({
        name: "v1",
        storage: true,
        spec: structuredClone(rgd.spec.schema.spec),
        conversion: {},
      });
    });
    assert.ok(errors(twoStorage).some((i) => i.code === "rgd.version-storage"));
    const hubTwice = variant((rgd) => {
      rgd.spec.schema.versions.push({ name: "v1alpha1" });
    });
    assert.ok(errors(hubTwice).some((i) => i.code === "rgd.version-duplicate" && /is the hub/.test(i.message)));
    const typo = variant((rgd) => {
      (rgd.spec.schema.versions[0] as Record<string, unknown>).stroage = true;
    });
    assert.ok(errors(typo).some((i) => i.path.join(".") === "spec.schema.versions.0.stroage"));
    const unserved = variant((rgd) => {
      (rgd.spec.schema.versions[0] as Record<string, unknown>).served = false;
    });
    assert.ok(errors(unserved).some((i) => /storage version and must be served/.test(i.message)));
  });
});
