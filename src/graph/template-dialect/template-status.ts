/**
 * `spec.statusMappings` of the template dialect (docs/reference/seed-dialect.md §7): each entry
 * selects one child by kind (+ apiVersion) and an optional name template, and copies conditions and
 * fields onto the parent's status. Checked here: shapes, that the selector can match a child, dot
 * paths, `parent` under `status.` and away from the controller's own fields, no two writers per
 * target.
 */
import { error, warning, type Issue, type IssuePath } from "../../diag/index.js";
import type { ConditionMapping, FieldMapping, PathStep, StatusMapping } from "../compiled-graph.js";
import { parseDotPath } from "../dot-path.js";
import { isRecord } from "../is-record.js";
import type { DraftChild } from "./template-child.js";
import { parseSource } from "./template-parse.js";

/** Status fields the controller writes itself (docs/reference/kro-reference.md §6). */
const CONTROLLER_OWNED: ReadonlySet<string> = new Set([
  "state",
  "conditions",
  "observedGeneration",
  "managedResources",
]);

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

function conditionMappings(value: unknown, path: IssuePath, issues: Issue[]): ConditionMapping[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(error("rgd.invalid-field", path, "conditions must be a list of {type, mapping: {type}}"));
    return [];
  }
  return value.flatMap((entry, i) => {
    const at = [...path, i];
    if (!isRecord(entry) || !nonEmptyString(entry.type)) {
      issues.push(
        error(
          "rgd.invalid-field",
          isRecord(entry) ? [...at, "type"] : at,
          "each condition mapping needs type: the child's condition type",
        ),
      );
      return [];
    }
    const mapping = entry.mapping;
    if (mapping === undefined) return [{ type: entry.type, mappedType: entry.type }];
    if (!isRecord(mapping) || !nonEmptyString(mapping.type)) {
      issues.push(
        error(
          "rgd.invalid-field",
          [...at, "mapping", ...(isRecord(mapping) ? ["type"] : [])],
          "mapping must be {type: <condition type on the parent>}",
        ),
      );
      return [];
    }
    return [{ type: entry.type, mappedType: mapping.type }];
  });
}

function fieldMapping(entry: unknown, at: IssuePath, issues: Issue[]): FieldMapping | undefined {
  if (!isRecord(entry)) {
    issues.push(
      error("rgd.invalid-field", at, "each field mapping must be {child: <dot path>, parent: status.<dot path>}"),
    );
    return undefined;
  }
  const side = (name: "child" | "parent"): PathStep[] | undefined => {
    const text = entry[name];
    if (!nonEmptyString(text)) {
      issues.push(
        error(
          text === undefined ? "rgd.field-missing" : "rgd.invalid-field",
          [...at, name],
          `${name} must be a dot path such as ${name === "child" ? "status.availableReplicas" : "status.replicas"}`,
        ),
      );
      return undefined;
    }
    const parsed = parseDotPath(text);
    if (parsed.ok) return parsed.steps;
    issues.push(error("rgd.invalid-path", [...at, name], parsed.message));
    return undefined;
  };
  const child = side("child");
  const parent = side("parent");
  if (child === undefined || parent === undefined) return undefined;
  const [root, first] = parent;
  if (root !== "status" || first === undefined) {
    issues.push(
      error(
        "rgd.invalid-path",
        [...at, "parent"],
        `parent must start with "status." (the parent's status is the only place mappings write), got "${String(entry.parent)}"`,
      ),
    );
    return undefined;
  }
  if (parent.some((s) => typeof s === "number")) {
    issues.push(
      error(
        "rgd.invalid-path",
        [...at, "parent"],
        "parent cannot contain list indexes: mappings write map fields only",
      ),
    );
    return undefined;
  }
  if (typeof first === "string" && CONTROLLER_OWNED.has(first)) {
    issues.push(
      error(
        "rgd.reserved-status-field",
        [...at, "parent"],
        `status.${first} is written by the controller; map to another field (conditions are mapped with conditions[])`,
      ),
    );
    return undefined;
  }
  return {
    child,
    parent: parent.slice(1).map(String),
    childText: String(entry.child),
    parentText: String(entry.parent),
  };
}

function selectCandidates(
  selector: Record<string, unknown>,
  at: IssuePath,
  children: readonly DraftChild[],
  complete: boolean,
  issues: Issue[],
): { kind: string; apiVersion?: string; candidates: string[] } | undefined {
  if (!nonEmptyString(selector.kind)) {
    issues.push(error("rgd.field-missing", [...at, "kind"], "childResource.kind is required"));
    return undefined;
  }
  if (selector.apiVersion !== undefined && !nonEmptyString(selector.apiVersion)) {
    issues.push(
      error("rgd.invalid-field", [...at, "apiVersion"], "childResource.apiVersion must be a string such as apps/v1"),
    );
    return undefined;
  }
  const { kind, apiVersion } = selector;
  const candidates = children
    .filter((c) => c.kind === kind && (apiVersion === undefined || c.apiVersion === apiVersion))
    .map((c) => c.id);
  if (candidates.length === 0) {
    // A child that failed to compile may be the one meant: its own error says enough.
    if (!complete) return undefined;
    const known = children.map((c) => `${c.apiVersion} ${c.kind}`).join(", ");
    issues.push(
      error(
        "rgd.status-mapping-no-child",
        [...at, "kind"],
        `no child resource is a ${apiVersion === undefined ? "" : `${apiVersion} `}${kind} (children: ${known === "" ? "none" : known})`,
      ),
    );
    return undefined;
  }
  return { kind, candidates, ...(apiVersion === undefined ? {} : { apiVersion }) };
}

/** `complete` is false when some childResources entry failed to compile (then no-match errors are held back). */
export function compileStatusMappings(
  value: unknown,
  children: readonly DraftChild[],
  complete: boolean,
  issues: Issue[],
): StatusMapping[] {
  const path: IssuePath = ["spec", "statusMappings"];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(error("rgd.invalid-field", path, "statusMappings must be a list"));
    return [];
  }
  const targets = new Map<string, IssuePath>();
  const conditionTypes = new Map<string, IssuePath>();
  const mappings = value.flatMap((entry, index): StatusMapping[] => {
    const at = [...path, index];
    if (!isRecord(entry) || !isRecord(entry.childResource)) {
      issues.push(
        error(
          "rgd.field-missing",
          isRecord(entry) ? [...at, "childResource"] : at,
          "each status mapping needs childResource: {kind, name}",
        ),
      );
      return [];
    }
    const selectorPath = [...at, "childResource"];
    const selected = selectCandidates(entry.childResource, selectorPath, children, complete, issues);
    const nameValue = entry.childResource.name;
    const name =
      nameValue === undefined
        ? undefined
        : parseSource(
            nameValue,
            [...selectorPath, "name"],
            `statusMappings[${index}].name`,
            "childResource.name",
            issues,
          );
    if (selected && nameValue === undefined && selected.candidates.length > 1) {
      issues.push(
        error(
          "rgd.status-mapping-ambiguous",
          selectorPath,
          `several children are ${selected.kind} (${selected.candidates.join(", ")}): set childResource.name to select one`,
        ),
      );
    }
    const conditions = conditionMappings(entry.conditions, [...at, "conditions"], issues);
    conditions.forEach((c, i) => {
      const earlier = conditionTypes.get(c.mappedType);
      if (earlier)
        issues.push(
          error(
            "rgd.status-mapping-duplicate",
            [...at, "conditions", i],
            `condition ${c.mappedType} is already mapped at ${earlier.join(".")}`,
          ),
        );
      else conditionTypes.set(c.mappedType, [...at, "conditions", i]);
    });
    const fields = Array.isArray(entry.fieldMappings) ? entry.fieldMappings : [];
    if (entry.fieldMappings !== undefined && !Array.isArray(entry.fieldMappings))
      issues.push(
        error("rgd.invalid-field", [...at, "fieldMappings"], "fieldMappings must be a list of {child, parent}"),
      );
    const fieldMappings = fields.flatMap((f, i) => {
      const mapped = fieldMapping(f, [...at, "fieldMappings", i], issues);
      if (mapped === undefined) return [];
      const key = mapped.parent.join(".");
      for (const [other, otherPath] of targets) {
        if (other === key || other.startsWith(`${key}.`) || key.startsWith(`${other}.`)) {
          issues.push(
            error(
              "rgd.status-mapping-duplicate",
              [...at, "fieldMappings", i, "parent"],
              `${mapped.parentText} overlaps status.${other}, written by ${otherPath.join(".")}`,
            ),
          );
        }
      }
      targets.set(key, [...at, "fieldMappings", i]);
      return [mapped];
    });
    if (
      conditions.length === 0 &&
      fieldMappings.length === 0 &&
      entry.conditions === undefined &&
      entry.fieldMappings === undefined
    ) {
      issues.push(warning("rgd.status-mapping-empty", at, "this status mapping maps no conditions and no fields"));
    }
    if (selected === undefined) return [];
    const { kind, apiVersion, candidates } = selected;
    return [
      {
        index,
        childResource: {
          kind,
          ...(apiVersion === undefined ? {} : { apiVersion }),
          ...(name === undefined ? {} : { name: name.text }),
        },
        candidates,
        conditions,
        fieldMappings,
      },
    ];
  });
  return mappings;
}
