// cli/compile: the compile commands — `kro validate`, `kro generate crd` (a template-dialect CRD
// too) — and the files compiled with their schema sources, the live cluster's OpenAPI included
// (`--cluster`, cached on disk), for every command that compiles. It builds on inputs only; it
// loads no runtime (validate stays light) and never starts a controller.
export {
  compileFiles,
  compileLoadedFile,
  type CompiledFile,
  printDiagnostics,
  registerCompileCommands,
  resolverFromFlags,
  type SchemaSourceFlags,
  withSchemaSources,
} from "./compile-commands.js";
export { type LiveSchemaOptions, liveSchemaResolver } from "./live-schemas.js";
