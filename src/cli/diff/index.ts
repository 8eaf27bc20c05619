// cli/diff: `kro diff` — what applying files would change: the targets, the field-level model, the
// preview evaluated as the controller would, the text. It reads the cluster and never writes; it
// builds on inputs, compile, render and inspect.
export { registerDiffCommand } from "./diff-command.js";
