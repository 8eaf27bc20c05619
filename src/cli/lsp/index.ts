// cli/lsp: `kro lsp`, the language server for RGD files (docs/design/language-server.md): LSP over
// stdio, diagnostics from the compiler through compile's compileLoadedFile, navigation and
// completion of `${…}`. It builds on compile and inputs; offline, no cluster client, no runtime.
export { registerLspCommand } from "./lsp-command.js";
export { CAPABILITIES, startLanguageServer, type ServerOptions } from "./server.js";
export { Debouncer, REAL_TIMERS, type Timers } from "./timers.js";
