/**
 * Field-level comparison for `kro diff`, pure: which fields of a live object would change if our
 * server-side apply went through. Only fields our field manager owns count — before (the live
 * object's managedFields) or after (the dry-run answer's) — so defaults, other managers' fields,
 * status and bookkeeping (resourceVersion, generation, managedFields) are never reported, while a
 * field we stop setting (owned before, gone after) is.
 *
 * managedFields use the FieldsV1 set format of structured-merge-diff: `f:<name>` a field,
 * `k:<json>` a list item by its key fields, `v:<json>` a set item by value, `i:<n>` an index, and
 * `.` the element itself.
 */
import { compareCodeUnits } from "../../api/index.js";

export type FieldStep =
  | { readonly field: string }
  | { readonly key: Readonly<Record<string, unknown>> }
  | { readonly value: unknown }
  | { readonly index: number };

/** One owned leaf: its path and whether only its existence is owned (`.`), not its value. */
interface OwnedLeaf {
  readonly steps: readonly FieldStep[];
  readonly presenceOnly: boolean;
}

export interface FieldChange {
  /** `spec.template.spec.containers[name=web].image`, `metadata.labels["app.kubernetes.io/name"]`. */
  readonly path: string;
  /** Absent: the field is added. */
  readonly before?: unknown;
  /** Absent: the field is removed. */
  readonly after?: unknown;
}

interface ManagedFieldsEntry {
  manager?: unknown;
  operation?: unknown;
  fieldsType?: unknown;
  fieldsV1?: unknown;
  subresource?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Bookkeeping the API server keeps, never a change anyone asked for. */
const NOISE = new Set([
  "metadata.uid",
  "metadata.resourceVersion",
  "metadata.generation",
  "metadata.creationTimestamp",
  "metadata.managedFields",
  "metadata.selfLink",
]);

function parseStep(key: string): FieldStep | undefined {
  const tag = key.slice(0, 2);
  const rest = key.slice(2);
  try {
    if (tag === "f:") return { field: rest };
    if (tag === "k:") return { key: JSON.parse(rest) as Record<string, unknown> };
    if (tag === "v:") return { value: JSON.parse(rest) as unknown };
    if (tag === "i:") return { index: Number(rest) };
  } catch {
    return undefined; // a malformed entry cannot name a field: ignored rather than guessed
  }
  return undefined;
}

function collectLeaves(set: unknown, prefix: readonly FieldStep[], out: OwnedLeaf[]): void {
  if (!isRecord(set)) return;
  const keys = Object.keys(set);
  if (keys.length === 0) {
    if (prefix.length > 0) out.push({ steps: prefix, presenceOnly: false });
    return;
  }
  for (const key of keys) {
    if (key === ".") {
      out.push({ steps: prefix, presenceOnly: true });
      continue;
    }
    const step = parseStep(key);
    if (step !== undefined) collectLeaves(set[key], [...prefix, step], out);
  }
}

/** The fields `manager` owns on `object` through apply (the main resource, not a subresource). */
export function ownedLeaves(object: Readonly<Record<string, unknown>>, manager: string): OwnedLeaf[] {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? (metadata.managedFields as ManagedFieldsEntry[]) : [];
  const out: OwnedLeaf[] = [];
  for (const entry of entries) {
    if (entry.manager !== manager || entry.operation !== "Apply" || entry.fieldsType !== "FieldsV1") continue;
    if (typeof entry.subresource === "string" && entry.subresource !== "") continue;
    collectLeaves(entry.fieldsV1, [], out);
  }
  return out;
}

const SIMPLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function formatSteps(steps: readonly FieldStep[]): string {
  let text = "";
  for (const step of steps) {
    if ("field" in step)
      text += SIMPLE_NAME.test(step.field)
        ? `${text === "" ? "" : "."}${step.field}`
        : `[${JSON.stringify(step.field)}]`;
    else if ("key" in step)
      text += `[${Object.entries(step.key)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(",")}]`;
    else if ("value" in step) text += `[=${JSON.stringify(step.value)}]`;
    else text += `[${step.index}]`;
  }
  return text;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
}

/** The value at `steps` in `object`; `found: false` when any step is missing. */
export function valueAt(object: unknown, steps: readonly FieldStep[]): { found: boolean; value?: unknown } {
  let current: unknown = object;
  for (const step of steps) {
    if ("field" in step) {
      if (!isRecord(current) || !(step.field in current)) return { found: false };
      current = current[step.field];
    } else if ("index" in step) {
      if (!Array.isArray(current) || step.index >= current.length) return { found: false };
      current = current[step.index];
    } else {
      if (!Array.isArray(current)) return { found: false };
      const items: readonly unknown[] = current;
      const match: unknown =
        "key" in step
          ? items.find((item) => isRecord(item) && Object.entries(step.key).every(([k, v]) => jsonEqual(item[k], v)))
          : items.find((item) => jsonEqual(item, step.value));
      if (match === undefined) return { found: false };
      current = match;
    }
  }
  return { found: true, value: current };
}

/**
 * What applying would change on `live`, given the dry-run answer `after`: every field `manager`
 * owns on either side whose value (or, for `.` entries, existence) differs. Sorted by path.
 */
export function ownedFieldChanges(
  live: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  manager: string,
): FieldChange[] {
  const leaves = new Map<string, OwnedLeaf>();
  for (const leaf of [...ownedLeaves(live, manager), ...ownedLeaves(after, manager)]) {
    const path = formatSteps(leaf.steps);
    const known = leaves.get(path);
    // A value leaf on one side beats a presence-only one on the other: the value is what changed.
    if (known === undefined || (known.presenceOnly && !leaf.presenceOnly)) leaves.set(path, leaf);
  }
  const changes: FieldChange[] = [];
  for (const [path, leaf] of leaves) {
    if (NOISE.has(path) || path === "status" || path.startsWith("status.") || path.startsWith("status[")) continue;
    const before = valueAt(live, leaf.steps);
    const next = valueAt(after, leaf.steps);
    if (before.found === next.found && (leaf.presenceOnly || !before.found || jsonEqual(before.value, next.value)))
      continue;
    changes.push({
      path,
      ...(before.found ? { before: before.value } : {}),
      ...(next.found ? { after: next.value } : {}),
    });
  }
  return dropCovered(changes).sort((a, b) => compareCodeUnits(a.path, b.path));
}

/**
 * A list item added or removed is one change, not one per field inside it: changes under a path
 * that is itself added or removed are folded into it.
 */
function dropCovered(changes: readonly FieldChange[]): FieldChange[] {
  const wholes = changes.filter((c) => !("before" in c && "after" in c)).map((c) => c.path);
  return changes.filter(
    (c) => !wholes.some((w) => w !== c.path && (c.path.startsWith(`${w}.`) || c.path.startsWith(`${w}[`))),
  );
}

/** Every leaf that differs between two JSON values (lists compared whole), under `prefix`. */
export function jsonChanges(before: unknown, after: unknown, prefix: readonly FieldStep[] = []): FieldChange[] {
  if (jsonEqual(before, after)) return [];
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => {
      const path = [...prefix, { field: k }];
      if (!(k in after)) return [{ path: formatSteps(path), before: before[k] }];
      if (!(k in before)) return [{ path: formatSteps(path), after: after[k] }];
      return jsonChanges(before[k], after[k], path);
    });
  }
  return [
    {
      path: formatSteps(prefix),
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    },
  ];
}
