/**
 * Helm 3's release record, read back: the chart and the user's values Helm keeps in the cluster
 * (Secret `sh.helm.release.v1.NAME.vN` of type `helm.sh/release.v1`, or a ConfigMap with the
 * configmap driver). The record's `release` field is base64 of gzip of the release as JSON; the
 * chart's template and file contents inside are base64 again (Go's []byte in JSON).
 *
 * Pure: the CLI reads the objects; this turns their payload into ChartFiles + values. Helm does
 * not store subcharts in the record (Chart.dependencies is unexported in Go), so a release whose
 * chart has dependencies cannot be rebuilt from the record alone: that is an error naming them.
 */
import { gunzipSync } from "node:zlib";
import { ANNOTATIONS, loadYaml } from "../api/index.js";
import { asChartMetadata } from "./chart-metadata.js";
import type { ChartFiles } from "./types.js";

/** A decompressed release larger than this is refused (Helm's own Secret limit is 1 MiB compressed). */
const MAX_RELEASE_BYTES = 64 * 1024 * 1024;

export const RELEASE_RECORD_TYPE = "helm.sh/release.v1";

/** Labels Helm's storage drivers put on every record (`owner=helm,name=…,version=…,status=…`). */
export const releaseSelector = (name: string): string => `owner=helm,name=${name}`;

export class ReleaseRecordError extends Error {
  override readonly name = "ReleaseRecordError";
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(path === undefined ? message : `${path}: ${message}`);
  }
}

export interface HelmFile {
  readonly name: string;
  /** Decoded bytes (the record holds them base64-encoded). */
  readonly data: Uint8Array;
}

export interface HelmHookRecord {
  readonly name: string;
  readonly kind: string;
  readonly path: string;
  readonly events: readonly string[];
  /** The hook's rendered object (hooks are not in the release's manifest). */
  readonly manifest: string;
  /** Helm's last run of it in this revision (`last_run`): phase "" when it has not run. */
  readonly lastRun: { readonly phase: string; readonly startedAt: string; readonly completedAt: string };
}

export interface HelmChartRecord {
  readonly metadata: Record<string, unknown> & { readonly name: string; readonly version: string };
  readonly templates: readonly HelmFile[];
  readonly files: readonly HelmFile[];
  readonly values: Record<string, unknown>;
  readonly schema?: Uint8Array;
  readonly lock?: unknown;
}

export interface HelmRelease {
  readonly name: string;
  readonly namespace: string;
  /** The revision (`helm history`'s REVISION). */
  readonly version: number;
  /** deployed, superseded, failed, pending-install, pending-upgrade, pending-rollback, uninstalling, uninstalled. */
  readonly status: string;
  readonly chart: HelmChartRecord;
  /** The user's values (`-f`, `--set`), without the chart's defaults. */
  readonly config: Record<string, unknown>;
  /** The rendered manifest Helm applied (hooks excluded). */
  readonly manifest: string;
  readonly hooks: readonly HelmHookRecord[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function mistyped(value: unknown, type: string, path: string): ReleaseRecordError {
  return new ReleaseRecordError(
    `expected a ${type}, got ${value === undefined ? "nothing" : JSON.stringify(value).slice(0, 40)}`,
    path,
  );
}
function stringField(object: Record<string, unknown>, key: string, path: string): string {
  const value = object[key];
  if (typeof value !== "string") throw mistyped(value, "string", `${path}.${key}`);
  return value;
}
function numberField(object: Record<string, unknown>, key: string, path: string): number {
  const value = object[key];
  if (typeof value !== "number") throw mistyped(value, "number", `${path}.${key}`);
  return value;
}

function base64Bytes(value: unknown, path: string): Uint8Array {
  if (value === null || value === undefined) return new Uint8Array();
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value))
    throw new ReleaseRecordError("expected base64 data", path);
  return new Uint8Array(Buffer.from(value, "base64"));
}

/** A chart-relative path that stays inside the chart: no absolute paths, no `..`, no empty segments. */
function chartPath(name: unknown, path: string): string {
  if (typeof name !== "string" || name === "") throw new ReleaseRecordError("expected a file name", path);
  const segments = name.split("/");
  if (name.startsWith("/") || name.includes("\\") || segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new ReleaseRecordError(`file name ${JSON.stringify(name)} is not a plain chart-relative path`, path);
  }
  return name;
}

function files(value: unknown, path: string): HelmFile[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new ReleaseRecordError("expected a list of files", path);
  return value.map((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isRecord(entry)) throw new ReleaseRecordError("expected {name, data}", at);
    return { name: chartPath(entry.name, `${at}.name`), data: base64Bytes(entry.data, `${at}.data`) };
  });
}

function hooks(value: unknown): HelmHookRecord[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((hook) => ({
    name: typeof hook.name === "string" ? hook.name : "",
    kind: typeof hook.kind === "string" ? hook.kind : "",
    path: typeof hook.path === "string" ? hook.path : "",
    events: Array.isArray(hook.events) ? hook.events.filter((e): e is string => typeof e === "string") : [],
    manifest: typeof hook.manifest === "string" ? hook.manifest : "",
    lastRun: lastRun(hook.last_run),
  }));
}

function lastRun(value: unknown): HelmHookRecord["lastRun"] {
  const run = isRecord(value) ? value : {};
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return { phase: text(run.phase), startedAt: text(run.started_at), completedAt: text(run.completed_at) };
}

function chart(value: unknown): HelmChartRecord {
  if (!isRecord(value)) throw new ReleaseRecordError("expected the chart", "release.chart");
  const metadata = value.metadata;
  if (!isRecord(metadata)) throw new ReleaseRecordError("expected the chart's metadata", "release.chart.metadata");
  const name = stringField(metadata, "name", "release.chart.metadata");
  const version = stringField(metadata, "version", "release.chart.metadata");
  const values = value.values ?? {};
  if (!isRecord(values)) throw new ReleaseRecordError("expected a map", "release.chart.values");
  const schema = base64Bytes(value.schema, "release.chart.schema");
  return {
    metadata: { ...metadata, name, version },
    templates: files(value.templates, "release.chart.templates"),
    files: files(value.files, "release.chart.files"),
    values,
    ...(schema.length > 0 ? { schema } : {}),
    ...(value.lock === null || value.lock === undefined ? {} : { lock: value.lock }),
  };
}

/**
 * Helm's encoding of a release as raw JSON (base64 of gzip of JSON; plain JSON inside the base64
 * is accepted too, as Helm's own decoder does). Every field is kept, known or not.
 */
export function releaseJson(payload: string): Record<string, unknown> {
  const compact = payload.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact === "")
    throw new ReleaseRecordError("the release record is not base64 (is this a Helm 3 release record?)");
  let bytes: Buffer = Buffer.from(compact, "base64");
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: MAX_RELEASE_BYTES });
    } catch (error) {
      throw new ReleaseRecordError(
        `the release record does not decompress: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new ReleaseRecordError(
      `the release record is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isRecord(json)) throw new ReleaseRecordError("expected a release object", "release");
  return json;
}

/** Decodes Helm's encoding of a release (the string Helm stores under `release`), checking every field it uses. */
export function decodeReleaseRecord(payload: string): HelmRelease {
  const json = releaseJson(payload);
  const info = isRecord(json.info) ? json.info : {};
  const config = json.config ?? {};
  if (!isRecord(config)) throw new ReleaseRecordError("expected a map of values", "release.config");
  return {
    name: stringField(json, "name", "release"),
    namespace: typeof json.namespace === "string" ? json.namespace : "",
    version: numberField(json, "version", "release"),
    status: typeof info.status === "string" ? info.status : "unknown",
    chart: chart(json.chart),
    config,
    manifest: typeof json.manifest === "string" ? json.manifest : "",
    hooks: hooks(json.hooks),
  };
}

/** Names of the chart's declared dependencies (subcharts), which the record does not hold. */
export function declaredDependencies(release: HelmRelease): string[] {
  const deps = release.chart.metadata.dependencies;
  if (!Array.isArray(deps)) return [];
  return deps.filter(isRecord).map((d) => (typeof d.alias === "string" && d.alias !== "" ? d.alias : String(d.name)));
}

const text = (value: string): Uint8Array => new Uint8Array(Buffer.from(value, "utf8"));

/**
 * The chart as the importer reads it. Chart.yaml and values.yaml are rebuilt from the parsed
 * metadata and default values as JSON (valid YAML; values.yaml's comments are not in the record,
 * so descriptions from comments are lost on this path).
 *
 * Helm does not store subcharts in the record, and rewrites the stored Chart.yaml's dependencies
 * (aliases become names, dependencies disabled at that install are dropped). A chart with
 * dependencies therefore needs `source`: the chart the release was installed from (same name and
 * version), whose `charts/` and declared dependencies are taken; templates, files and default
 * values still come from the record.
 */
export function releaseChartFiles(release: HelmRelease, source?: ChartFiles): ChartFiles {
  const dependencies = declaredDependencies(release);
  if (dependencies.length > 0 && source === undefined) {
    throw new ReleaseRecordError(
      `chart ${release.chart.metadata.name} declares subcharts (${dependencies.join(", ")}), and Helm does not store subcharts in the release record; pass the chart the release was installed from with --chart (directory or .tgz, version ${release.chart.metadata.version})`,
      "release.chart.metadata.dependencies",
    );
  }
  const out = new Map<string, Uint8Array>();
  const metadata = source === undefined ? release.chart.metadata : withSourceDependencies(release, source, out);
  out.set("Chart.yaml", text(`${JSON.stringify(metadata, null, 2)}\n`));
  out.set("values.yaml", text(`${JSON.stringify(release.chart.values, null, 2)}\n`));
  if (release.chart.schema !== undefined) out.set("values.schema.json", release.chart.schema);
  if (release.chart.lock !== undefined) out.set("Chart.lock", text(`${JSON.stringify(release.chart.lock, null, 2)}\n`));
  for (const file of [...release.chart.files, ...release.chart.templates]) {
    if (out.has(file.name))
      throw new ReleaseRecordError(`file ${file.name} appears twice in the release record`, "release.chart");
    out.set(file.name, file.data);
  }
  return out;
}

/** The record's metadata with `source`'s declared dependencies; copies source's charts/ (and requirements.yaml) into `out`. */
function withSourceDependencies(
  release: HelmRelease,
  source: ChartFiles,
  out: Map<string, Uint8Array>,
): Record<string, unknown> {
  const chartYaml = source.get("Chart.yaml");
  const loaded = chartYaml === undefined ? undefined : loadYaml("Chart.yaml", Buffer.from(chartYaml).toString("utf8"));
  const read: unknown = loaded?.documents[0]?.value;
  const meta = isRecord(read) ? asChartMetadata(read) : undefined;
  if (meta === undefined) throw new ReleaseRecordError("--chart: not a Helm chart (no readable Chart.yaml)");
  const recorded = release.chart.metadata;
  const version = typeof meta.version === "string" || typeof meta.version === "number" ? String(meta.version) : "";
  if (meta.name !== recorded.name || version !== recorded.version) {
    throw new ReleaseRecordError(
      `--chart is ${typeof meta.name === "string" ? meta.name : "?"} ${version}, but the release was installed from ${recorded.name} ${recorded.version}`,
    );
  }
  for (const [path, bytes] of source)
    if (path.startsWith("charts/") || path === "requirements.yaml") out.set(path, bytes);
  const { dependencies: _recorded, ...rest } = recorded;
  return meta.dependencies === undefined ? rest : { ...rest, dependencies: meta.dependencies };
}

export interface RecordRef {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** The instance a record names as its successor, when `kro import helm --release --apply` marked it (release-mark.ts). */
export function migratedTo(record: RecordRef): string | undefined {
  const target = record.annotations?.[ANNOTATIONS.helmMigratedTo];
  return record.labels.status === "uninstalled" && target !== undefined && target !== "" ? target : undefined;
}

/**
 * The record to migrate from: the newest revision, which must be `deployed` — or `uninstalled`
 * by an earlier migration of this release, which marked it so (a migration run again). A newest
 * revision in flight (pending-*), failed, or uninstalled by Helm means the live objects may not
 * match any one record: refuse.
 */
export function newestRecord<T extends RecordRef>(records: readonly T[], release: string, namespace: string): T {
  const numbered = records
    .map((record) => ({ record, version: Number(record.labels.version) }))
    .filter((r) => Number.isInteger(r.version))
    .sort((a, b) => b.version - a.version);
  const newest = numbered[0];
  if (newest === undefined)
    throw new ReleaseRecordError(
      `no Helm 3 release ${JSON.stringify(release)} in namespace ${namespace} (no Secret or ConfigMap labelled ${releaseSelector(release)})`,
    );
  const status = newest.record.labels.status ?? "unknown";
  if (status !== "deployed" && migratedTo(newest.record) === undefined) {
    throw new ReleaseRecordError(
      `release ${namespace}/${release} revision ${newest.version} is ${status}, not deployed; finish or roll back the Helm operation first (helm history ${release} -n ${namespace})`,
    );
  }
  return newest.record;
}

/**
 * Helm's encoded release from a storage object: a Secret's `data.release` is base64 (Kubernetes')
 * of it, a ConfigMap's `data.release` is it.
 */
export function recordPayload(object: {
  readonly kind?: unknown;
  readonly metadata?: unknown;
  readonly data?: unknown;
}): string {
  const name = isRecord(object.metadata) && typeof object.metadata.name === "string" ? object.metadata.name : "?";
  const release = isRecord(object.data) ? object.data.release : undefined;
  if (typeof release !== "string" || release === "")
    throw new ReleaseRecordError(`${String(object.kind)} ${name} has no data.release`);
  return object.kind === "Secret" ? Buffer.from(release, "base64").toString("utf8") : release;
}
