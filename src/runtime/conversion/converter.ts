/**
 * Converts an instance between the versions of its API through the hub (docs/design/api-versions.md):
 * A → hub → B. Each step prunes the source spec to the target schema (identical fields carry over),
 * evaluates the declared expressions with `self` = the source object, and moves round-trip
 * fields into (and back out of) the `conversion.kro.run/<version>` annotation. Status and the rest
 * of the metadata carry over unchanged. Pure and total: a failure is a ConversionError naming the field.
 */
import {
  compileField,
  createKroCelEnvironment,
  isDataPending,
  jsonToCel,
  type CompiledField,
  type KroCelEnvironment,
} from "../../expr/index.js";
import {
  objectSchema,
  roundTripAnnotation,
  type ApiVersions,
  type CompiledVersion,
  type ConversionDirection,
} from "../../graph/index.js";
import type { JSONSchemaProps } from "../../schema/index.js";
import { deletePath, getPath, setPath } from "./object-paths.js";
import { pruneToSchema } from "./prune-to-schema.js";

export type VersionedObject = Record<string, unknown> & { apiVersion?: string; metadata?: Record<string, unknown> };

export class ConversionError extends Error {
  /** The target field whose expression failed, e.g. "spec.port"; undefined for whole-object problems. */
  readonly field: string | undefined;
  constructor(message: string, field?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConversionError";
    this.field = field;
  }
}

export interface ApiOfVersions {
  readonly group: string;
  readonly kind: string;
  readonly hubSpec: JSONSchemaProps;
  readonly versions: ApiVersions;
}

interface CompiledStep {
  readonly fields: readonly { readonly path: readonly string[]; readonly compiled: CompiledField }[];
  readonly direction: ConversionDirection;
}

let sharedEnv: KroCelEnvironment | undefined;
const envOf = (): KroCelEnvironment =>
  (sharedEnv ??= createKroCelEnvironment({ enableRuntime: true, enableOmit: true }));

const steps = new WeakMap<ConversionDirection, CompiledStep>();
function compiledStep(direction: ConversionDirection): CompiledStep {
  let step = steps.get(direction);
  if (step === undefined) {
    const env = envOf();
    step = {
      direction,
      fields: direction.fields.map((f) => ({
        path: f.path.map(String),
        compiled: compileField(env, f.text, f.segments),
      })),
    };
    steps.set(direction, step);
  }
  return step;
}

const versionOfApiVersion = (api: ApiOfVersions, apiVersion: unknown): string | undefined => {
  if (typeof apiVersion !== "string") return undefined;
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0 || apiVersion.slice(0, slash) !== api.group ? undefined : apiVersion.slice(slash + 1);
};

export function servedVersionNames(api: ApiOfVersions): string[] {
  return [api.versions.hub, ...api.versions.versions.map((v) => v.name)];
}

function annotationsOf(object: VersionedObject): Record<string, string> {
  const metadata = (object.metadata ??= {});
  const annotations = metadata.annotations;
  if (typeof annotations === "object" && annotations !== null) return annotations as Record<string, string>;
  const created: Record<string, string> = {};
  metadata.annotations = created;
  return created;
}

function dropEmptyAnnotations(object: VersionedObject): void {
  const annotations = object.metadata?.annotations;
  if (typeof annotations === "object" && annotations !== null && Object.keys(annotations).length === 0)
    delete object.metadata?.annotations;
}

/**
 * The API server's bound on an object's annotations: keys and values together, in bytes
 * (apimachinery's TotalAnnotationSizeLimitB). Converted objects are stored without that check,
 * but every later write of the object is refused by it.
 */
export const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

function annotationsSize(annotations: Record<string, string>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  return bytes;
}

/** Stashes `paths` of the source spec under `key` (or removes a stale stash when none is present). */
function stash(
  out: VersionedObject,
  source: VersionedObject,
  paths: readonly (readonly string[])[],
  key: string,
): void {
  const kept: Record<string, unknown> = {};
  for (const path of paths) {
    const value = getPath(source.spec, path);
    if (value !== undefined) setPath(kept, path, value);
  }
  const annotations = annotationsOf(out);
  if (Object.keys(kept).length > 0) annotations[key] = JSON.stringify({ spec: kept });
  else Reflect.deleteProperty(annotations, key);
}

/**
 * An object converted to the version it is stored at whose round-trip stash takes its annotations
 * over the API server's bound is refused: stored, it would make every later write of the object
 * fail (its finalizer could never be removed). A view at another version is not bounded: the API
 * server validates only what it stores, and a write back through the storage version drops that
 * stash again.
 */
function refuseOversizedStash(api: ApiOfVersions, out: VersionedObject, where: string): void {
  const annotations = out.metadata?.annotations as Record<string, string> | undefined;
  if (annotations === undefined) return;
  const stashes = servedVersionNames(api)
    .map(roundTripAnnotation)
    .filter((key) => annotations[key] !== undefined);
  if (stashes.length === 0) return;
  const size = annotationsSize(annotations);
  if (size > ANNOTATIONS_SIZE_LIMIT)
    throw new ConversionError(
      `${where}: the round-trip fields kept in annotation ${stashes.join(", ")} take the object's annotations to ${size} bytes; the API server allows ${ANNOTATIONS_SIZE_LIMIT} (256 KiB) and would refuse every later write of it: make those fields smaller`,
    );
}

/** Restores fields stashed under `key` (only `paths`: an annotation never writes anything else) and removes the stash. */
function restore(out: VersionedObject, paths: readonly (readonly string[])[], key: string): void {
  const annotations = annotationsOf(out);
  const text = annotations[key];
  Reflect.deleteProperty(annotations, key);
  if (text === undefined) return;
  let kept: unknown;
  try {
    kept = JSON.parse(text);
  } catch {
    return;
  } // a hand-edited annotation is ignored, never fatal
  const spec = (out.spec ??= {}) as Record<string, unknown>;
  for (const path of paths) {
    const value = getPath((kept as { spec?: unknown }).spec, path);
    if (value !== undefined) setPath(spec, path, value);
  }
}

function applyStep(
  source: VersionedObject,
  sourceSpec: JSONSchemaProps,
  targetSpec: JSONSchemaProps,
  direction: ConversionDirection,
  where: string,
): Record<string, unknown> {
  const spec = (pruneToSchema(source.spec ?? {}, targetSpec) ?? {}) as Record<string, unknown>;
  for (const literal of direction.literals) setPath(spec, literal.path.slice(1), structuredClone(literal.value));
  const step = compiledStep(direction);
  if (step.fields.length === 0) return spec;
  const self = jsonToCel(source, objectSchema(sourceSpec));
  for (const { path, compiled } of step.fields) {
    const specPath = path.slice(1);
    try {
      const result = compiled.evaluate({ self });
      if (result.omitted) deletePath(spec, specPath);
      else if (specPath.length === 0) return result.value as Record<string, unknown>;
      else setPath(spec, specPath, result.value);
    } catch (e) {
      // A field the source leaves out leaves the target field out, too.
      if (isDataPending(e)) {
        deletePath(spec, specPath);
        continue;
      }
      throw new ConversionError(
        `${where}: ${path.join(".")}: ${e instanceof Error ? e.message : String(e)}`,
        path.join("."),
        { cause: e },
      );
    }
  }
  return spec;
}

function toHub(api: ApiOfVersions, object: VersionedObject, from: CompiledVersion): VersionedObject {
  const where = `converting ${api.kind} from ${from.name} to ${api.versions.hub}`;
  const out: VersionedObject = { ...structuredClone(object), apiVersion: `${api.group}/${api.versions.hub}` };
  out.spec = applyStep(object, from.specSchema, api.hubSpec, from.toHub, where);
  stash(out, object, from.roundTrip.version, roundTripAnnotation(from.name));
  restore(out, from.roundTrip.hub, roundTripAnnotation(api.versions.hub));
  dropEmptyAnnotations(out);
  return out;
}

function fromHub(api: ApiOfVersions, object: VersionedObject, to: CompiledVersion): VersionedObject {
  const where = `converting ${api.kind} from ${api.versions.hub} to ${to.name}`;
  const out: VersionedObject = { ...structuredClone(object), apiVersion: `${api.group}/${to.name}` };
  out.spec = applyStep(object, api.hubSpec, to.specSchema, to.fromHub, where);
  stash(out, object, to.roundTrip.hub, roundTripAnnotation(api.versions.hub));
  restore(out, to.roundTrip.version, roundTripAnnotation(to.name));
  dropEmptyAnnotations(out);
  return out;
}

/** `object` at the version named `to`; throws ConversionError. */
export function convertObject(api: ApiOfVersions, object: VersionedObject, to: string): VersionedObject {
  const from = versionOfApiVersion(api, object.apiVersion);
  const names = servedVersionNames(api);
  if (from === undefined || !names.includes(from))
    throw new ConversionError(
      `${api.kind}: apiVersion ${JSON.stringify(object.apiVersion)} is not one of ${names.map((n) => `${api.group}/${n}`).join(", ")}`,
    );
  if (!names.includes(to))
    throw new ConversionError(
      `${api.kind}: cannot convert to ${api.group}/${to}: the versions are ${names.join(", ")}`,
    );
  if (from === to) return structuredClone(object);
  const source = api.versions.versions.find((v) => v.name === from);
  const hub = source === undefined ? structuredClone(object) : toHub(api, object, source);
  const target = api.versions.versions.find((v) => v.name === to);
  const out = target === undefined ? hub : fromHub(api, hub, target);
  if (to === api.versions.storage)
    refuseOversizedStash(api, out, `converting ${api.kind} from ${from} to ${to}, the version it is stored at`);
  return out;
}

/** The conversion view of a compiled CEL graph; undefined when its API has one version. */
export function apiOfGraph(graph: {
  readonly instance: { readonly group: string; readonly kind: string; readonly version: string };
  readonly crd?:
    | {
        readonly spec: {
          readonly versions: readonly {
            readonly name: string;
            readonly schema: { readonly openAPIV3Schema: JSONSchemaProps };
          }[];
        };
      }
    | undefined;
  readonly versions?: ApiVersions;
}): ApiOfVersions | undefined {
  if (graph.versions === undefined || graph.crd === undefined) return undefined;
  const hub = graph.crd.spec.versions.find((v) => v.name === graph.instance.version);
  const hubSpec = hub?.schema.openAPIV3Schema.properties?.spec ?? { type: "object" };
  return { group: graph.instance.group, kind: graph.instance.kind, hubSpec, versions: graph.versions };
}

export const isConversionError = (e: unknown): e is ConversionError => e instanceof ConversionError;
