/**
 * One `spec.childResources[]` entry of the template dialect (docs/reference/seed-dialect.md §3–§5):
 * required fields, the id (default: the kind with its first letter lower-cased), every Go template
 * parsed, and the `.children.<id>` reads and `dependsOn` ids it declares. Ids are checked against
 * each other later, once every child is known.
 */
import { error, warning, type Issue, type IssuePath } from "../../diag/index.js";
import { isRecord } from "../is-record.js";
import { checkKind } from "../naming.js";
import type { SchemaResolver } from "../schema-resolver.js";
import { parseSource, templateName, type ParsedSource } from "./template-parse.js";

const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  "apiVersion",
  "kind",
  "id",
  "nameTemplate",
  "template",
  "manifests",
  "condition",
  "dependsOn",
  "readyWhen",
]);

/** Go template field names: `.children.<id>` must be able to spell the id. */
const CHILD_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const API_VERSION = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;

export interface DraftChild {
  readonly id: string;
  readonly index: number;
  readonly path: IssuePath;
  /** Where the id came from: the `id` field, or the entry itself when defaulted from the kind. */
  readonly idPath: IssuePath;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean | undefined;
  /** Absent for a `manifests` child (its objects carry their own names). */
  readonly nameTemplate: ParsedSource | undefined;
  readonly template: ParsedSource | undefined;
  /** A `manifests` child: the name of the spec.helm template whose objects of this kind it owns. */
  readonly manifests?: { readonly name: string; readonly path: IssuePath };
  readonly condition: ParsedSource | undefined;
  readonly readyWhen: readonly ParsedSource[];
  readonly dependsOn: readonly { readonly id: string; readonly path: IssuePath }[];
}

export function defaultChildId(kind: string): string {
  return kind.slice(0, 1).toLowerCase() + kind.slice(1);
}

function requiredString(
  entry: Record<string, unknown>,
  field: string,
  path: IssuePath,
  issues: Issue[],
): string | undefined {
  const value = entry[field];
  if (typeof value === "string" && value.trim() !== "") return value;
  issues.push(
    error(
      value === undefined ? "rgd.field-missing" : "rgd.invalid-field",
      [...path, field],
      value === undefined ? `${field} is required` : `${field} must be a non-empty string`,
    ),
  );
  return undefined;
}

function dependsOnList(value: unknown, path: IssuePath, issues: Issue[]): { id: string; path: IssuePath }[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(error("rgd.invalid-field", path, "dependsOn must be a list of child ids"));
    return [];
  }
  return value.flatMap((item, i) => {
    if (typeof item === "string" && item !== "") return [{ id: item, path: [...path, i] }];
    issues.push(
      error(
        "rgd.invalid-field",
        [...path, i],
        `dependsOn entries must be child ids (strings), got ${JSON.stringify(item)}`,
      ),
    );
    return [];
  });
}

function readyWhenList(value: unknown, path: IssuePath, id: string, issues: Issue[]): ParsedSource[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(
      error(
        "rgd.invalid-field",
        path,
        "readyWhen must be a list of Go templates that render true when the child is ready",
      ),
    );
    return [];
  }
  return value.flatMap(
    (item, i) =>
      parseSource(item, [...path, i], templateName(id, `readyWhen[${i}]`), "each readyWhen entry", issues) ?? [],
  );
}

interface ChildHead {
  readonly index: number;
  readonly path: IssuePath;
  readonly idPath: IssuePath;
  readonly name: string;
  readonly id: string | undefined;
  readonly apiVersion: string | undefined;
  readonly kind: string | undefined;
}

/**
 * A `manifests` child (template-dialect.md §9): every object of its kind that one spec.helm
 * template renders. nameTemplate and template do not apply: the objects carry their own names.
 */
function draftManifestsChild(
  entry: Record<string, unknown>,
  head: ChildHead,
  resolver: SchemaResolver | undefined,
  issues: Issue[],
): { child?: DraftChild; issues: Issue[] } {
  const { index, path, idPath, name, id, apiVersion, kind } = head;
  for (const field of ["nameTemplate", "template"]) {
    if (entry[field] !== undefined)
      issues.push(
        error(
          "rgd.invalid-field",
          [...path, field],
          `${field} does not apply to a manifests child: the objects the template renders carry their own names and bodies`,
        ),
      );
  }
  const manifests = requiredString(entry, "manifests", path, issues);
  const condition =
    entry.condition === undefined
      ? undefined
      : parseSource(entry.condition, [...path, "condition"], templateName(name, "condition"), "condition", issues);
  const readyWhen = readyWhenList(entry.readyWhen, [...path, "readyWhen"], name, issues);
  const dependsOn = dependsOnList(entry.dependsOn, [...path, "dependsOn"], issues);
  if (id === undefined || apiVersion === undefined || kind === undefined || manifests === undefined) return { issues };
  const namespaced = resolver?.resolve(apiVersion, kind)?.namespaced;
  return {
    child: {
      id,
      index,
      path,
      idPath,
      apiVersion,
      kind,
      namespaced,
      nameTemplate: undefined,
      template: undefined,
      manifests: { name: manifests, path: [...path, "manifests"] },
      condition,
      readyWhen,
      dependsOn,
    },
    issues,
  };
}

export function draftChild(
  entry: unknown,
  index: number,
  resolver: SchemaResolver | undefined,
): { child?: DraftChild; issues: Issue[] } {
  const path: IssuePath = ["spec", "childResources", index];
  const issues: Issue[] = [];
  if (!isRecord(entry))
    return {
      issues: [
        error(
          "rgd.invalid-child",
          path,
          "a child resource must be an object with apiVersion, kind, nameTemplate and template",
        ),
      ],
    };
  for (const key of Object.keys(entry)) {
    if (!KNOWN_FIELDS.has(key))
      issues.push(
        warning(
          "rgd.unknown-field",
          [...path, key],
          `unknown field "${key}" (known: ${[...KNOWN_FIELDS].join(", ")}); it is ignored`,
        ),
      );
  }
  const apiVersion = requiredString(entry, "apiVersion", path, issues);
  if (apiVersion !== undefined && !API_VERSION.test(apiVersion))
    issues.push(
      error(
        "rgd.invalid-api-version",
        [...path, "apiVersion"],
        `apiVersion "${apiVersion}" must look like v1 or group/v1`,
      ),
    );
  const kindIssues = checkKind(entry.kind, [...path, "kind"]);
  issues.push(...kindIssues);
  const kind = kindIssues.length === 0 && typeof entry.kind === "string" ? entry.kind : undefined;

  let id: string | undefined;
  const idPath: IssuePath = entry.id === undefined ? path : [...path, "id"];
  if (entry.id !== undefined) {
    if (typeof entry.id !== "string" || !CHILD_ID.test(entry.id)) {
      issues.push(
        error(
          "rgd.id-invalid",
          [...path, "id"],
          `child id ${JSON.stringify(entry.id)} must be a Go identifier (${CHILD_ID.source}) so templates can read it as .children.<id>`,
        ),
      );
    } else id = entry.id;
  } else if (kind !== undefined) id = defaultChildId(kind);
  const name = id ?? `#${index}`;

  if (entry.manifests !== undefined)
    return draftManifestsChild(entry, { index, path, idPath, name, id, apiVersion, kind }, resolver, issues);
  const nameTemplate =
    entry.nameTemplate === undefined
      ? (issues.push(
          error(
            "rgd.field-missing",
            [...path, "nameTemplate"],
            'nameTemplate is required (a Go template for metadata.name, e.g. "{{.parent.metadata.name}}")',
          ),
        ),
        undefined)
      : parseSource(
          entry.nameTemplate,
          [...path, "nameTemplate"],
          templateName(name, "nameTemplate"),
          "nameTemplate",
          issues,
        );
  const template =
    entry.template === undefined
      ? (issues.push(
          error(
            "rgd.field-missing",
            [...path, "template"],
            "template is required (a Go template that renders the child's YAML body)",
          ),
        ),
        undefined)
      : parseSource(entry.template, [...path, "template"], templateName(name, "template"), "template", issues);
  const condition =
    entry.condition === undefined
      ? undefined
      : parseSource(entry.condition, [...path, "condition"], templateName(name, "condition"), "condition", issues);
  const readyWhen = readyWhenList(entry.readyWhen, [...path, "readyWhen"], name, issues);
  const dependsOn = dependsOnList(entry.dependsOn, [...path, "dependsOn"], issues);

  if (
    id === undefined ||
    apiVersion === undefined ||
    kind === undefined ||
    nameTemplate === undefined ||
    template === undefined
  )
    return { issues };
  const namespaced = resolver?.resolve(apiVersion, kind)?.namespaced;
  return {
    child: {
      id,
      index,
      path,
      idPath,
      apiVersion,
      kind,
      namespaced,
      nameTemplate,
      template,
      condition,
      readyWhen,
      dependsOn,
    },
    issues,
  };
}
