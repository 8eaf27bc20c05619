import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { compileRgd } from "../../graph/index.js";
import { apiOfGraph, ConversionError, convertObject, type ApiOfVersions, type VersionedObject } from "./converter.js";

const root = new URL("../../../../", import.meta.url);
const load = (file: string) =>
  loadYaml(file, readFileSync(new URL(`examples/versions/${file}`, root), "utf8")).documents[0]?.value as Record<
    string,
    unknown
  >;
type Rgd = { spec: { schema: Record<string, unknown> & { versions: Record<string, unknown>[] } } };

export function apiOf(rgd: unknown): ApiOfVersions {
  const result = compileRgd(rgd);
  assert.deepEqual(
    result.issues.filter((i) => i.severity === "error"),
    [],
  );
  const api = result.graph === undefined ? undefined : apiOfGraph(result.graph);
  assert.ok(api);
  return api;
}

const rgd = load("webapp-v1beta1.yaml");
const api = apiOf(rgd);
const beta = load("app-v1beta1.yaml") as VersionedObject;

describe("convertObject", () => {
  it("renames and moves fields both ways and keeps metadata and status", () => {
    const withStatus = { ...structuredClone(beta), status: { state: "ACTIVE" } };
    const hub = convertObject(api, withStatus, "v1alpha1");
    assert.deepEqual(hub, {
      apiVersion: "kro.run/v1alpha1",
      kind: "EvolvingApp",
      metadata: { name: "shop" },
      spec: { image: "nginx:1.27", port: 8080, team: "payments" },
      status: { state: "ACTIVE" },
    });
    assert.deepEqual(convertObject(api, hub, "v1beta1"), withStatus);
  });

  it("leaves a target field out when its source field is absent", () => {
    const partial = { ...structuredClone(beta), spec: { image: "x" } };
    assert.deepEqual(convertObject(api, partial, "v1alpha1").spec, { image: "x" });
  });

  it("keeps round-trip fields in an annotation and restores them", () => {
    const copy = structuredClone(rgd) as Rgd;
    const v = copy.spec.schema.versions[0] as { spec: Record<string, unknown>; conversion: Record<string, unknown> };
    v.spec.canary = "boolean";
    v.conversion.roundTrip = { version: ["spec.canary"] };
    const canaryApi = apiOf(copy);
    const object = { ...structuredClone(beta), spec: { ...(beta.spec as object), canary: true } };
    const hub = convertObject(canaryApi, object, "v1alpha1");
    assert.equal((hub.spec as Record<string, unknown>).canary, undefined, "the hub has no place for it");
    assert.equal(
      (hub.metadata as { annotations: Record<string, string> }).annotations["conversion.kro.run/v1beta1"],
      '{"spec":{"canary":true}}',
    );
    assert.deepEqual(
      convertObject(canaryApi, hub, "v1beta1"),
      object,
      "the annotation is gone again and canary is back",
    );
  });

  it("a failing expression is a ConversionError naming the field", () => {
    const copy = structuredClone(rgd) as Rgd;
    (copy.spec.schema.versions[0]?.conversion as { toHub: { spec: Record<string, unknown> } }).toHub.spec.port =
      "${self.spec.ports.http / (self.spec.ports.http - 8080)}";
    const failing = apiOf(copy);
    assert.throws(
      () => convertObject(failing, beta, "v1alpha1"),
      (e: unknown) =>
        e instanceof ConversionError &&
        e.field === "spec.port" &&
        /from v1beta1 to v1alpha1: spec\.port: .*divi/i.test(e.message),
    );
  });

  it("refuses an object of another group or an unknown target version", () => {
    assert.throws(
      () => convertObject(api, { ...beta, apiVersion: "other.io/v1beta1" }, "v1alpha1"),
      /is not one of kro\.run\/v1alpha1, kro\.run\/v1beta1/,
    );
    assert.throws(() => convertObject(api, beta, "v2"), /cannot convert to kro\.run\/v2/);
  });
});
