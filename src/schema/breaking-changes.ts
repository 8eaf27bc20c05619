/**
 * Classifies the difference between a CRD in the cluster and the one an RGD now implies (§3.7):
 * a change is breaking when objects that were valid (or stored) before can become invalid or
 * lose data. kro refuses breaking updates unless the RGD carries
 * `kro.run/allow-breaking-changes: "true"`; the caller decides, this module only judges.
 */
import type { JSONSchemaProps, JsonValue } from "./openapi-types.js";

export const SCHEMA_CHANGE_KINDS = {
  versionRemoved: "VersionRemoved",
  versionAdded: "VersionAdded",
  propertyRemoved: "PropertyRemoved",
  propertyAdded: "PropertyAdded",
  typeChanged: "TypeChanged",
  requiredAdded: "RequiredAdded",
  requiredRemoved: "RequiredRemoved",
  enumRestricted: "EnumRestricted",
  enumExpanded: "EnumExpanded",
  patternChanged: "PatternChanged",
  patternRemoved: "PatternRemoved",
  requiredDefaultRemoved: "RequiredDefaultRemoved",
  defaultChanged: "DefaultChanged",
  descriptionChanged: "DescriptionChanged",
  constraintTightened: "ConstraintTightened",
  constraintRelaxed: "ConstraintRelaxed",
} as const;
export type SchemaChangeKind = (typeof SCHEMA_CHANGE_KINDS)[keyof typeof SCHEMA_CHANGE_KINDS];

export interface SchemaChange {
  readonly kind: SchemaChangeKind;
  readonly breaking: boolean;
  /** CRD version name the change is in. */
  readonly version: string;
  /** Field path inside the version's schema: property names, "[]" for array items, "{}" for map values. */
  readonly path: readonly string[];
  readonly description: string;
}

/** The part of a CRD the classifier reads; a CRD fetched from the cluster fits as is. */
export interface CrdSchemaSource {
  readonly spec: {
    readonly versions: readonly {
      readonly name: string;
      readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
    }[];
  };
  /** The versions objects may still be stored at (a CRD read from the cluster); unknown means every version. */
  readonly status?: { readonly storedVersions?: readonly string[] };
}

export interface CrdUpdateClassification {
  readonly breaking: readonly SchemaChange[];
  readonly nonBreaking: readonly SchemaChange[];
}

const LOWER_BOUNDS = ["minimum", "minLength", "minItems"] as const;
const UPPER_BOUNDS = ["maximum", "maxLength", "maxItems"] as const;

export function diffCrdSchemas(existing: CrdSchemaSource, desired: CrdSchemaSource): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const desiredByName = new Map(desired.spec.versions.map((v) => [v.name, v]));
  const existingNames = new Set(existing.spec.versions.map((v) => v.name));
  const stored = existing.status?.storedVersions;
  for (const old of existing.spec.versions) {
    const next = desiredByName.get(old.name);
    if (next === undefined) {
      // Removing a version no object is stored at loses nothing; a stored one would strand objects.
      if (stored !== undefined && !stored.includes(old.name)) {
        changes.push({
          kind: SCHEMA_CHANGE_KINDS.versionRemoved,
          breaking: false,
          version: old.name,
          path: [],
          description: `version ${old.name} removed (no object is stored at it)`,
        });
      } else {
        changes.push({
          kind: SCHEMA_CHANGE_KINDS.versionRemoved,
          breaking: true,
          version: old.name,
          path: [],
          description:
            stored === undefined
              ? `version ${old.name} removed`
              : `version ${old.name} removed while objects are still stored at it (storage migration has not finished)`,
        });
      }
      continue;
    }
    diffSchema(old.schema?.openAPIV3Schema ?? {}, next.schema?.openAPIV3Schema ?? {}, [], {
      version: old.name,
      changes,
    });
  }
  for (const next of desired.spec.versions) {
    if (!existingNames.has(next.name))
      changes.push({
        kind: SCHEMA_CHANGE_KINDS.versionAdded,
        breaking: false,
        version: next.name,
        path: [],
        description: `version ${next.name} added`,
      });
  }
  return changes;
}

export function classifyCrdUpdate(existing: CrdSchemaSource, desired: CrdSchemaSource): CrdUpdateClassification {
  const changes = diffCrdSchemas(existing, desired);
  return { breaking: changes.filter((c) => c.breaking), nonBreaking: changes.filter((c) => !c.breaking) };
}

/** "a; b; c (and 2 more)": kro reports the first three breaking changes in KindReady. */
export function summarizeChanges(changes: readonly SchemaChange[], limit = 3): string {
  const shown = changes
    .slice(0, limit)
    .map((c) => c.description)
    .join("; ");
  return changes.length > limit ? `${shown} (and ${changes.length - limit} more)` : shown;
}

export function formatChangePath(path: readonly string[]): string {
  return path.reduce(
    (out, segment) =>
      segment === "[]" || segment === "{}"
        ? `${out}${segment === "[]" ? "[*]" : "[<key>]"}`
        : out === ""
          ? segment
          : `${out}.${segment}`,
    "",
  );
}

interface DiffContext {
  readonly version: string;
  readonly changes: SchemaChange[];
}

function diffSchema(old: JSONSchemaProps, next: JSONSchemaProps, path: readonly string[], ctx: DiffContext): void {
  const at = formatChangePath(path) || "<root>";
  const add = (kind: SchemaChangeKind, breaking: boolean, description: string, where: readonly string[] = path) => {
    ctx.changes.push({ kind, breaking, version: ctx.version, path: where, description });
  };
  if (old.type !== next.type) {
    add(
      SCHEMA_CHANGE_KINDS.typeChanged,
      true,
      `${at}: type changed from ${old.type ?? "unset"} to ${next.type ?? "unset"}`,
    );
    return; // everything below a type change is moot
  }
  if (old.description !== next.description)
    add(SCHEMA_CHANGE_KINDS.descriptionChanged, false, `${at}: description changed`);
  diffEnum(old.enum, next.enum, at, add);
  if (next.pattern !== undefined && next.pattern !== old.pattern) {
    add(
      SCHEMA_CHANGE_KINDS.patternChanged,
      true,
      old.pattern === undefined
        ? `${at}: pattern ${next.pattern} added`
        : `${at}: pattern changed from ${old.pattern} to ${next.pattern}`,
    );
  } else if (next.pattern === undefined && old.pattern !== undefined) {
    add(SCHEMA_CHANGE_KINDS.patternRemoved, false, `${at}: pattern removed`);
  }
  for (const bound of LOWER_BOUNDS) diffBound(bound, old[bound], next[bound], (a, b) => b > a, at, add);
  for (const bound of UPPER_BOUNDS) diffBound(bound, old[bound], next[bound], (a, b) => b < a, at, add);

  const oldProps = old.properties ?? {};
  const nextProps = next.properties ?? {};
  const oldRequired = new Set(old.required ?? []);
  const nextRequired = new Set(next.required ?? []);
  for (const name of Object.keys(oldProps).sort()) {
    const child = [...path, name];
    const before = oldProps[name] ?? {};
    const after = Object.hasOwn(nextProps, name) ? nextProps[name] : undefined;
    if (after === undefined) {
      add(SCHEMA_CHANGE_KINDS.propertyRemoved, true, `${formatChangePath(child)}: property removed`, child);
      continue;
    }
    if (nextRequired.has(name) && before.default !== undefined && after.default === undefined) {
      add(
        SCHEMA_CHANGE_KINDS.requiredDefaultRemoved,
        true,
        `${formatChangePath(child)}: default removed from a required field`,
        child,
      );
    } else if (!sameJson(before.default, after.default)) {
      add(SCHEMA_CHANGE_KINDS.defaultChanged, false, `${formatChangePath(child)}: default changed`, child);
    }
    diffSchema(before, after, child, ctx);
  }
  for (const name of Object.keys(nextProps).sort()) {
    if (!Object.hasOwn(oldProps, name))
      add(SCHEMA_CHANGE_KINDS.propertyAdded, false, `${formatChangePath([...path, name])}: property added`, [
        ...path,
        name,
      ]);
  }
  // A required field inside a brand-new property breaks nothing: no stored object has the parent.
  for (const name of [...nextRequired].sort()) {
    if (!oldRequired.has(name))
      add(SCHEMA_CHANGE_KINDS.requiredAdded, true, `${formatChangePath([...path, name])}: field became required`, [
        ...path,
        name,
      ]);
  }
  for (const name of [...oldRequired].sort()) {
    if (!nextRequired.has(name) && Object.hasOwn(nextProps, name))
      add(
        SCHEMA_CHANGE_KINDS.requiredRemoved,
        false,
        `${formatChangePath([...path, name])}: field no longer required`,
        [...path, name],
      );
  }
  if (old.items !== undefined && next.items !== undefined) diffSchema(old.items, next.items, [...path, "[]"], ctx);
  if (typeof old.additionalProperties === "object" && typeof next.additionalProperties === "object") {
    diffSchema(old.additionalProperties, next.additionalProperties, [...path, "{}"], ctx);
  }
}

type AddChange = (kind: SchemaChangeKind, breaking: boolean, description: string) => void;

function diffEnum(
  old: readonly JsonValue[] | undefined,
  next: readonly JsonValue[] | undefined,
  at: string,
  add: AddChange,
): void {
  if (next === undefined) {
    if (old !== undefined) add(SCHEMA_CHANGE_KINDS.enumExpanded, false, `${at}: enum removed`);
    return;
  }
  if (old === undefined) {
    add(SCHEMA_CHANGE_KINDS.enumRestricted, true, `${at}: enum [${next.map(show).join(", ")}] added`);
    return;
  }
  const removed = old.filter((v) => !next.some((n) => sameJson(n, v)));
  const added = next.filter((v) => !old.some((o) => sameJson(o, v)));
  if (removed.length > 0)
    add(SCHEMA_CHANGE_KINDS.enumRestricted, true, `${at}: enum values removed: ${removed.map(show).join(", ")}`);
  else if (added.length > 0)
    add(SCHEMA_CHANGE_KINDS.enumExpanded, false, `${at}: enum values added: ${added.map(show).join(", ")}`);
}

function diffBound(
  name: string,
  old: number | undefined,
  next: number | undefined,
  tighter: (a: number, b: number) => boolean,
  at: string,
  add: AddChange,
): void {
  if (old === next) return;
  if (next === undefined) add(SCHEMA_CHANGE_KINDS.constraintRelaxed, false, `${at}: ${name} removed`);
  else if (old === undefined) add(SCHEMA_CHANGE_KINDS.constraintTightened, true, `${at}: ${name} ${next} added`);
  else if (tighter(old, next))
    add(SCHEMA_CHANGE_KINDS.constraintTightened, true, `${at}: ${name} changed from ${old} to ${next}`);
  else add(SCHEMA_CHANGE_KINDS.constraintRelaxed, false, `${at}: ${name} relaxed from ${old} to ${next}`);
}

const show = (v: JsonValue): string => JSON.stringify(v);

/** JSON equality that ignores object key order (a CRD read back may reorder keys). */
function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return stableStringify(a) === stableStringify(b);
}

function stableStringify(value: JsonValue | undefined): string {
  if (value === undefined) return "undefined";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${(value as readonly JsonValue[]).map(stableStringify).join(",")}]`;
  const record = value as Readonly<Record<string, JsonValue>>;
  return `{${Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableStringify(record[k])}`)
    .join(",")}}`;
}
