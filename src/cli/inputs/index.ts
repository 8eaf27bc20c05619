// cli/inputs: what the commands share about their inputs: reading RGD and instance files (InputError,
// located documents), flag values, the built-in Kubernetes schemas and the schema resolver.
// Pure reading and parsing: it registers no command and knows no other room; no cluster client.
export { loadBuiltinSchemas } from "./builtin-schemas.js";
export { durationFlag, nonNegativeNumber, positiveInteger, positiveNumber } from "./flag-values.js";
export { childApiVersions, InputError, isKind, loadFiles, locate, schemaResolverFor } from "./inputs.js";
