// cli/inspect: reading a live cluster as the caller — `kro tree`, `kro ui`, `kro graph` (with live
// node colours) — the live instance's graph read from the cluster, the tree's text. It reads with the
// caller's client and writes nothing; it builds on inputs and compile, and knows no dev loop.
export { registerGraphCommand } from "./graph-command.js";
export { describeNode, instancePicture } from "./node-status.js";
export { registerTreeCommand } from "./tree-command.js";
export { apiVersionOf, childApiVersionsOf, servedKind } from "./tree-live.js";
export { registerUiCommand } from "./ui-command.js";
