/**
 * Compiles `spec.schema.versions[]` of a CEL-dialect RGD (docs/design/api-versions.md): each version's
 * SimpleSchema, its conversion to and from the hub in both directions, type-checked against both
 * schemas, and the lossless check. An RGD without `versions` compiles to no ApiVersions at all,
 * so a kro v0.9 RGD means exactly what it meant.
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import type { KroCelEnvironment } from "../../expr/index.js";
import { parseSimpleSchema, type JSONSchemaProps } from "../../schema/index.js";
import { isRecord } from "../is-record.js";
import type { ApiVersions, CompiledVersion } from "./compiled-version.js";
import { compileDirection } from "./conversion-compile.js";
import { lostFields } from "./lossless.js";
import { fieldSchema, type FieldPath } from "./schema-leaves.js";
import { readVersionDecls, type VersionDecl } from "./version-decls.js";

export interface VersionsInput {
  readonly env: KroCelEnvironment;
  /** `spec.schema` as written. */
  readonly schema: Record<string, unknown>;
  readonly hubName: string;
  /** The hub's parsed spec schema. */
  readonly hubSpec: JSONSchemaProps;
}

export interface VersionsResult {
  readonly versions?: ApiVersions;
  readonly issues: readonly Issue[];
}

const CONVERSION_KEYS = new Set(["toHub", "fromHub", "roundTrip"]);

function roundTripPaths(
  value: unknown,
  path: IssuePath,
  schema: JSONSchemaProps,
  owner: string,
  issues: Issue[],
): FieldPath[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(error("rgd.conversion-invalid", path, "a list of field paths such as spec.legacyField"));
    return [];
  }
  const out: FieldPath[] = [];
  value.forEach((entry: unknown, i) => {
    const steps = typeof entry === "string" ? entry.split(".") : [];
    if (steps[0] !== "spec" || steps.length < 2 || steps.some((s) => s === "")) {
      issues.push(
        error(
          "rgd.conversion-invalid",
          [...path, i],
          `expected a field path below spec (e.g. spec.legacyField), got ${JSON.stringify(entry)}`,
        ),
      );
    } else if (fieldSchema(schema, steps.slice(1)) === undefined) {
      issues.push(error("rgd.conversion-unknown-field", [...path, i], `${entry as string} is not a field of ${owner}`));
    } else out.push(steps.slice(1));
  });
  return out;
}

function compileVersion(input: VersionsInput, decl: VersionDecl, issues: Issue[]): CompiledVersion | undefined {
  const { entry, path, name } = decl;
  const hubTypes = isRecord(input.schema.types) ? input.schema.types : {};
  const ownTypes = isRecord(entry.types) ? entry.types : {};
  const parsed = parseSimpleSchema(entry.spec ?? {}, {
    types: { ...hubTypes, ...ownTypes },
    path: [...path, "spec"],
    typesPath: [...path, "types"],
  });
  issues.push(...parsed.issues);
  if (parsed.schema === undefined) return undefined;
  const spec = parsed.schema;
  const conversion = entry.conversion ?? {};
  const convPath = [...path, "conversion"];
  if (!isRecord(conversion)) {
    issues.push(
      error("rgd.conversion-invalid", convPath, "conversion must be an object with toHub, fromHub and roundTrip"),
    );
    return undefined;
  }
  for (const key of Object.keys(conversion))
    if (!CONVERSION_KEYS.has(key))
      issues.push(
        error(
          "rgd.conversion-invalid",
          [...convPath, key],
          `unknown field "${key}" (a conversion has toHub, fromHub, roundTrip)`,
        ),
      );
  const keep = conversion.roundTrip ?? {};
  const keepPath = [...convPath, "roundTrip"];
  if (!isRecord(keep))
    issues.push(
      error("rgd.conversion-invalid", keepPath, "roundTrip must be an object with lists `version` and `hub`"),
    );
  const keepVersion = isRecord(keep) ? roundTripPaths(keep.version, [...keepPath, "version"], spec, name, issues) : [];
  const keepHub = isRecord(keep)
    ? roundTripPaths(keep.hub, [...keepPath, "hub"], input.hubSpec, input.hubName, issues)
    : [];
  const version = { name, spec };
  const hub = { name: input.hubName, spec: input.hubSpec };
  const toHub = compileDirection({
    env: input.env,
    map: conversion.toHub,
    path: [...convPath, "toHub"],
    source: version,
    target: hub,
  });
  const fromHub = compileDirection({
    env: input.env,
    map: conversion.fromHub,
    path: [...convPath, "fromHub"],
    source: hub,
    target: version,
  });
  issues.push(...toHub.issues, ...fromHub.issues);
  issues.push(
    ...lostFields({
      source: { ...version, declaredAt: [...path, "spec"] },
      target: hub,
      reads: toHub.reads,
      writes: toHub.writes,
      roundTrip: keepVersion,
      mapName: `spec.schema.versions[${decl.index}].conversion.toHub`,
      roundTripName: `spec.schema.versions[${decl.index}].conversion.roundTrip.version`,
    }),
  );
  issues.push(
    ...lostFields({
      source: { ...hub, declaredAt: ["spec", "schema", "spec"] },
      target: version,
      reads: fromHub.reads,
      writes: fromHub.writes,
      roundTrip: keepHub,
      mapName: `spec.schema.versions[${decl.index}].conversion.fromHub`,
      roundTripName: `spec.schema.versions[${decl.index}].conversion.roundTrip.hub`,
    }),
  );
  return {
    name,
    served: decl.served,
    storage: decl.storage,
    deprecated: decl.deprecated,
    ...(decl.deprecationWarning === undefined ? {} : { deprecationWarning: decl.deprecationWarning }),
    specSchema: spec,
    toHub: toHub.direction,
    fromHub: fromHub.direction,
    roundTrip: { version: keepVersion, hub: keepHub },
  };
}

export function compileVersions(input: VersionsInput): VersionsResult {
  const decls = readVersionDecls(input.schema, input.hubName);
  const issues: Issue[] = [...decls.issues];
  if (input.schema.versions === undefined && !decls.hub.deprecated) return { issues };
  const versions = decls.versions.flatMap((d) => compileVersion(input, d, issues) ?? []);
  if (decls.storage === undefined) return { issues };
  return {
    issues,
    versions: {
      hub: input.hubName,
      storage: decls.storage,
      hubDeprecated: decls.hub.deprecated,
      ...(decls.hub.deprecationWarning === undefined ? {} : { hubDeprecationWarning: decls.hub.deprecationWarning }),
      versions,
    },
  };
}
