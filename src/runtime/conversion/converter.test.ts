import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { compileRgd } from "../../graph/index.js";
import {
  ANNOTATIONS_SIZE_LIMIT,
  apiOfGraph,
  ConversionError,
  convertObject,
  type ApiOfVersions,
  type VersionedObject,
} from "./converter.js";

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

  it("refuses a round-trip stash that would take the stored object's annotations past the API server's 256 KiB", () => {
    // v1beta1 is the storage version: a hub-only field is kept in an annotation of what is stored.
    const copy = structuredClone(rgd) as Rgd & { spec: { schema: { spec: Record<string, unknown> } } };
    copy.spec.schema.spec.notes = "string";
    const v = copy.spec.schema.versions[0] as { conversion: Record<string, unknown> };
    v.conversion.roundTrip = { hub: ["spec.notes"] };
    const notesApi = apiOf(copy);
    const hub = convertObject(notesApi, beta, "v1alpha1");
    const withNotes = (notes: string) => ({ ...hub, spec: { ...(hub.spec as object), notes } });
    // The bound is on keys and values together, in bytes: 2-byte characters count twice.
    const key = "conversion.kro.run/v1alpha1";
    const fits = ANNOTATIONS_SIZE_LIMIT - key.length - '{"spec":{"notes":""}}'.length;
    assert.ok(convertObject(notesApi, withNotes("x".repeat(fits)), "v1beta1"));
    assert.throws(
      () => convertObject(notesApi, withNotes("x".repeat(fits + 1)), "v1beta1"),
      (e: unknown) =>
        e instanceof ConversionError &&
        /to v1beta1, the version it is stored at: the round-trip fields kept in annotation conversion\.kro\.run\/v1alpha1 take the object's annotations to 262145 bytes; the API server allows 262144/.test(
          e.message,
        ),
    );
    assert.throws(
      () => convertObject(notesApi, withNotes("é".repeat(Math.ceil(fits / 2) + 1)), "v1beta1"),
      ConversionError,
    );
  });

  it("bounds only what is stored: a view at another version may carry a large stash", () => {
    const copy = structuredClone(rgd) as Rgd;
    const v = copy.spec.schema.versions[0] as { spec: Record<string, unknown>; conversion: Record<string, unknown> };
    v.spec.notes = "string";
    v.conversion.roundTrip = { version: ["spec.notes"] };
    const notesApi = apiOf(copy);
    const stored = {
      ...structuredClone(beta),
      spec: { ...(beta.spec as object), notes: "n".repeat(ANNOTATIONS_SIZE_LIMIT) },
    };
    const view = convertObject(notesApi, stored, "v1alpha1");
    assert.deepEqual(convertObject(notesApi, view, "v1beta1"), stored, "written back, the stash is gone again");
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
