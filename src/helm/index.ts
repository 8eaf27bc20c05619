// helm: turns a Helm chart (its files as bytes) into a CRD, a template-dialect RGD and an example instance.
// Pure: no I/O (the CLI and the migration read directories, archives and release records and hand bytes in).
export { importHelmChart } from "./import-chart.js";
export { coalesce as coalesceValues } from "./values.js";
export { CHART_LIMITS, decodeChartArchive } from "./chart-archive.js";
export {
  HelmImportError,
  isHelmImportError,
  type ChartFiles,
  type HelmImportOptions,
  type HelmImportResult,
  type HelmImportWarning,
  type KubeObject,
} from "./types.js";
export {
  decodeReleaseRecord,
  declaredDependencies,
  newestRecord,
  recordPayload,
  releaseChartFiles,
  releaseSelector,
  ReleaseRecordError,
  RELEASE_RECORD_TYPE,
  type HelmRelease,
  type HelmChartRecord,
  type HelmFile,
  type HelmHookRecord,
  migratedTo,
  type RecordRef,
} from "./release-record.js";
export { markedRecord, migratedDescription, MIGRATED_STATUS, type StoredRecord } from "./release-mark.js";
export {
  describeObject as describeReleaseObject,
  describePlan,
  describeReleaseHooks,
  fieldChanges,
  identityKey,
  identityOf,
  manifestObjects,
  planMigration,
  type AdoptedObject,
  type DryRunAnswer,
  type FieldChange,
  type MigrationPlan,
  type ObjectIdentity,
} from "./migration-plan.js";
