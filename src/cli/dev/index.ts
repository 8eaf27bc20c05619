// cli/dev: the local loop — `kro dev`/`kro demo` (files watched, applied, the live board, the
// verdict, graph SVGs) and `kro cluster` (a local control plane with member clusters, progress).
// It builds on inputs, inspect and process; it owns no compile command.
export { registerClusterCommands } from "./cluster-up.js";
export { registerDevCommands } from "./dev-command.js";
