/**
 * The declaration part of `spec.schema.versions[]`: names, served/storage/deprecation flags, and
 * the rules between them (unique names, one storage version, the storage version served). The
 * hub (`spec.schema`) takes part: it is always served, and the storage version unless another
 * version claims it. Schemas and conversions are compiled elsewhere (conversion-compile.ts).
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import { isRecord } from "../is-record.js";

const VERSION_NAME = /^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$/;
const ENTRY_KEYS = new Set([
  "name",
  "served",
  "storage",
  "deprecated",
  "deprecationWarning",
  "spec",
  "types",
  "conversion",
]);
/** The API server caps a deprecation warning at 256 characters. */
const MAX_WARNING = 256;

export interface VersionDecl {
  readonly index: number;
  readonly path: IssuePath;
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  readonly entry: Record<string, unknown>;
}

export interface HubFlags {
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
}

export interface VersionDecls {
  readonly hub: HubFlags;
  readonly versions: readonly VersionDecl[];
  readonly storage: string | undefined;
  readonly issues: readonly Issue[];
}

function flag(
  entry: Record<string, unknown>,
  key: string,
  fallback: boolean,
  path: IssuePath,
  issues: Issue[],
): boolean {
  const value = entry[key];
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    issues.push(
      error("rgd.version-invalid", [...path, key], `${key} must be true or false, got ${JSON.stringify(value)}`),
    );
    return fallback;
  }
  return value;
}

function deprecation(entry: Record<string, unknown>, path: IssuePath, issues: Issue[]): HubFlags {
  const deprecated = flag(entry, "deprecated", false, path, issues);
  const warning = entry.deprecationWarning;
  if (warning === undefined) return { deprecated };
  if (typeof warning !== "string" || warning.length > MAX_WARNING) {
    issues.push(
      error(
        "rgd.version-invalid",
        [...path, "deprecationWarning"],
        `deprecationWarning must be a string of at most ${MAX_WARNING} characters`,
      ),
    );
    return { deprecated };
  }
  if (!deprecated)
    issues.push(
      error(
        "rgd.version-invalid",
        [...path, "deprecationWarning"],
        "deprecationWarning is only printed for a version marked deprecated: true",
      ),
    );
  return { deprecated, deprecationWarning: warning };
}

export function readVersionDecls(schema: Record<string, unknown>, hubName: string): VersionDecls {
  const issues: Issue[] = [];
  const hubPath: IssuePath = ["spec", "schema"];
  const hub = deprecation(schema, hubPath, issues);
  const raw = schema.versions;
  if (raw === undefined) return { hub, versions: [], storage: hubName, issues };
  const base: IssuePath = [...hubPath, "versions"];
  if (!Array.isArray(raw))
    return {
      hub,
      versions: [],
      storage: undefined,
      issues: [...issues, error("rgd.version-invalid", base, "spec.schema.versions must be a list")],
    };
  const seen = new Set([hubName]);
  const versions: VersionDecl[] = [];
  raw.forEach((entry: unknown, index) => {
    const path = [...base, index];
    if (!isRecord(entry)) {
      issues.push(error("rgd.version-invalid", path, "a version must be an object with a name"));
      return;
    }
    for (const key of Object.keys(entry))
      if (!ENTRY_KEYS.has(key))
        issues.push(
          error(
            "rgd.version-invalid",
            [...path, key],
            `unknown field "${key}" (a version has ${[...ENTRY_KEYS].join(", ")})`,
          ),
        );
    const name = entry.name;
    if (typeof name !== "string" || !VERSION_NAME.test(name)) {
      issues.push(
        error(
          "rgd.version-invalid",
          [...path, "name"],
          `name must look like v1, v1alpha1 or v2beta3, got ${JSON.stringify(name)}`,
        ),
      );
      return;
    }
    if (seen.has(name)) {
      issues.push(
        error(
          "rgd.version-duplicate",
          [...path, "name"],
          name === hubName
            ? `version ${name} is the hub (spec.schema.apiVersion); list only the other versions here`
            : `version ${name} is declared twice`,
        ),
      );
      return;
    }
    seen.add(name);
    const served = flag(entry, "served", true, path, issues);
    const storage = flag(entry, "storage", false, path, issues);
    const dep = deprecation(entry, path, issues);
    if (storage && !served)
      issues.push(
        error("rgd.version-invalid", [...path, "served"], `version ${name} is the storage version and must be served`),
      );
    versions.push({ index, path, name, served, storage, ...dep, entry });
  });
  const storages = versions.filter((v) => v.storage);
  const [second] = storages.slice(1);
  if (second !== undefined)
    issues.push(
      error(
        "rgd.version-storage",
        [...second.path, "storage"],
        `only one version can be the storage version: ${storages.map((v) => v.name).join(" and ")} both say storage: true`,
      ),
    );
  return { hub, versions, storage: storages[0]?.name ?? hubName, issues };
}
