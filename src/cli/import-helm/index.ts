// cli/import-helm: `kro import helm` — a chart read from a directory or .tgz, rendered to an RGD,
// its scope report, and with --release the adoption of a live Helm release (loaded only then).
// It builds on inputs; the chart conversion itself lives in src/helm/.
export { registerImportCommands } from "./import-helm-command.js";
