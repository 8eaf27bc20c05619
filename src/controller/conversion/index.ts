/**
 * conversion: the conversion webhook this controller serves for RGDs with several API versions —
 * its HTTPS server, its CA and serving certificate (rotation included), and storage migration of
 * stored instances. Converts only through runtime/conversion; never reconciles instances or RGDs,
 * never edits a CRD itself (the crds room installs the clientConfig this room hands out).
 */
export { ConversionWebhook, type ConversionWebhookOptions } from "./conversion-webhook.js";
export { reviewConversion, type ApiLookup, type ConversionReview } from "./conversion-review.js";
export { createServingCertificate, needsRotation, type ServingCertificate } from "./serving-certificate.js";
export { registerConversion, withConversionWebhook } from "./crd-conversion.js";
export {
  migrateStorage,
  needsMigration,
  type MigrationOptions,
  type MigrationOutcome,
  type MigrationTarget,
} from "./storage-migration.js";
export { StorageMigrations } from "./storage-migrations.js";
