// cli/controller: `kro controller` — flags to options (sharding, the web endpoint, the conversion
// webhook) and the controller's start and stop. It builds on inputs and process; the controller
// itself lives in src/controller/.
export { registerControllerCommand } from "./controller-command.js";
