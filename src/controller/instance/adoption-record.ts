/**
 * What adopting an object overwrites, so that releasing it can hand it back as it was. Every child
 * carries `app.kubernetes.io/managed-by: kro` (the child informers select by it), so adopting a
 * Helm release's object replaces its `app.kubernetes.io/managed-by: Helm` — the label Helm checks
 * before it will touch an existing object again (`helm rollback`, `helm upgrade
 * --take-ownership`). The value it had, and the field manager that wrote it, are kept in an
 * annotation written right after the adopting apply by the controller's own field manager (the
 * applyset manager's later applies never name it, so they leave it alone); the release patch
 * writes the value back as that manager and drops the annotation. Pure.
 */
import { ANNOTATIONS, FIELD_MANAGERS, LABELS } from "../../api/index.js";
import type { KubeJson } from "../../runtime/index.js";

/** The labels kro stamps on every child that another owner may already have set (the rest are `kro.run/…`). */
const STAMPED: readonly string[] = [LABELS.managedBy];

export interface AdoptionRecord {
  /** Label → the value it had before kro's apply overwrote it. */
  readonly labels: Readonly<Record<string, string>>;
  /** The field manager that owned those labels then (it writes them back on release). */
  readonly manager?: string;
}

interface Meta {
  uid?: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  managedFields?: { manager?: string; fieldsV1?: unknown }[];
}

const metaOf = (o: KubeJson): Meta => o.metadata ?? {};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The manager whose managed fields include `metadata.labels[key]`. */
function ownerOf(meta: Meta, key: string): string | undefined {
  for (const entry of meta.managedFields ?? []) {
    const fields = entry.fieldsV1;
    const labels = isRecord(fields) && isRecord(fields["f:metadata"]) ? fields["f:metadata"]["f:labels"] : undefined;
    if (isRecord(labels) && `f:${key}` in labels && typeof entry.manager === "string") return entry.manager;
  }
  return undefined;
}

/**
 * The merge patch recording what the adopting apply of `desired` overwrote on `live` (the foreign
 * object as read before it), preconditioned on its UID; undefined when nothing was overwritten or
 * a record is already there (the first one is the truth: later, the label is already ours).
 */
export function adoptionRecordPatch(live: KubeJson, desired: KubeJson): KubeJson | undefined {
  const meta = metaOf(live);
  if (typeof meta.uid !== "string" || meta.annotations?.[ANNOTATIONS.adoptedLabels] !== undefined) return undefined;
  const wanted = metaOf(desired).labels ?? {};
  const labels: Record<string, string> = {};
  let manager: string | undefined;
  for (const key of STAMPED) {
    const had = meta.labels?.[key];
    if (typeof had !== "string" || wanted[key] === undefined || wanted[key] === had) continue;
    labels[key] = had;
    manager ??= ownerOf(meta, key);
  }
  if (Object.keys(labels).length === 0) return undefined;
  const record: AdoptionRecord = { labels, ...(manager === undefined ? {} : { manager }) };
  return { metadata: { uid: meta.uid, annotations: { [ANNOTATIONS.adoptedLabels]: JSON.stringify(record) } } };
}

/** The record on a live object, if it carries a readable one. */
export function adoptionRecordOf(live: KubeJson): AdoptionRecord | undefined {
  const text = metaOf(live).annotations?.[ANNOTATIONS.adoptedLabels];
  if (typeof text !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isRecord(parsed) || !isRecord(parsed.labels)) return undefined;
    const labels = Object.fromEntries(
      Object.entries(parsed.labels).filter(
        (e): e is [string, string] => STAMPED.includes(e[0]) && typeof e[1] === "string",
      ),
    );
    const manager = typeof parsed.manager === "string" && parsed.manager !== "" ? parsed.manager : undefined;
    return { labels, ...(manager === undefined ? {} : { manager }) };
  } catch {
    return undefined;
  }
}

/**
 * The field manager a release patch is sent as: the one that wrote the labels it restores (so
 * they are owned as before the adoption), else the controller's (whose entry the patch drops).
 */
export function releaseManager(live: KubeJson): string {
  const record = adoptionRecordOf(live);
  return record !== undefined && Object.keys(record.labels).length > 0 && record.manager !== undefined
    ? record.manager
    : FIELD_MANAGERS.controller;
}
