/**
 * An instance against its CRD schema, as the API server sees it: structural defaulting and
 * validation. Pure; it knows nothing of graphs or dialects.
 */
export { applySchemaDefaults, crdSchema } from "./defaults.js";
export { validateInstance } from "./validate.js";
