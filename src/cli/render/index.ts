// cli/render: an instance as the controller would see it, offline — `kro render` (every object
// it would apply, then the status), `kro convert` (to another served version), `kro generate
// instance` (a commented sample). It builds on inputs and compile; no cluster, no controller.
export { registerConvertCommand } from "./convert-command.js";
export { registerGenerateInstance } from "./generate-instance.js";
export { convertInstance } from "./instance-versions.js";
export { registerRenderCommand } from "./render-command.js";
