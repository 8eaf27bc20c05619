/**
 * Helm's release record after a migration (helm-migration.md, "The Helm release record
 * afterwards"): the newest revision is marked `uninstalled` — Helm's own status for "Helm no longer
 * manages these objects, the history is kept" — with a description and an annotation naming the
 * kro-ts instance that manages them now. What Helm then does with it, checked with helm 3.18:
 * `helm list` leaves it out (`-a` shows it `uninstalled`), `helm status` says `uninstalled`,
 * `helm upgrade` refuses ("has no deployed releases"), `helm uninstall` removes only the records
 * and deletes no object, and `helm rollback NAME N` hands the objects back to Helm (the way back,
 * once the instance is deleted). Nothing claims the release is deployed, during the instance's
 * life or after it.
 *
 * Pure: the record is rewritten as data; the CLI writes it with resourceVersion and UID
 * preconditions. Every field of the release but `info.status` and `info.description` is kept as
 * Helm wrote it, and the result is decoded again with the strict decoder before it is returned.
 */
import { gzipSync } from "node:zlib";
import { ANNOTATIONS } from "../api/index.js";
import { decodeReleaseRecord, recordPayload, releaseJson, ReleaseRecordError } from "./release-record.js";

/** The status a migrated release's newest record gets (Helm's release.StatusUninstalled). */
export const MIGRATED_STATUS = "uninstalled";

/** What `helm history` shows as the revision's DESCRIPTION. */
export const migratedDescription = (target: string): string =>
  `Migrated to kro-ts: ${target} manages the release's objects, Helm no longer does (helm uninstall removes only this history; delete the instance, then helm rollback, to hand them back to Helm)`;

/** A storage object of Helm's (Secret or ConfigMap), as read from the API server. */
export interface StoredRecord {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly data?: unknown;
  readonly [key: string]: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Helm's encoding (encodeRelease): JSON, gzip, base64. */
function encodeRelease(json: Record<string, unknown>): string {
  return gzipSync(Buffer.from(JSON.stringify(json), "utf8")).toString("base64");
}

/**
 * The record marked as migrated to `target`: payload status and description, the `status` label
 * Helm's storage queries by, and the annotation. uid and resourceVersion stay, as the write's
 * preconditions.
 */
export function markedRecord<T extends StoredRecord>(record: T, target: string): T {
  const kind = record.kind;
  if (kind !== "Secret" && kind !== "ConfigMap")
    throw new ReleaseRecordError(`a Helm release record is a Secret or a ConfigMap, not ${String(kind)}`);
  const release = releaseJson(recordPayload(record));
  const info = isRecord(release.info) ? release.info : {};
  const payload = encodeRelease({
    ...release,
    info: { ...info, status: MIGRATED_STATUS, description: migratedDescription(target) },
  });
  // The strict decoder must read what we write, as Helm will.
  const check = decodeReleaseRecord(payload);
  if (check.status !== MIGRATED_STATUS) throw new ReleaseRecordError("internal: the marked record does not read back");
  const metadata = record.metadata ?? {};
  const data = isRecord(record.data) ? record.data : {};
  return {
    ...record,
    metadata: {
      ...metadata,
      labels: { ...(metadata.labels ?? {}), status: MIGRATED_STATUS },
      annotations: { ...(metadata.annotations ?? {}), [ANNOTATIONS.helmMigratedTo]: target },
    },
    data: { ...data, release: kind === "Secret" ? Buffer.from(payload, "utf8").toString("base64") : payload },
  };
}
