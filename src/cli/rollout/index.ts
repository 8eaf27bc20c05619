// cli/rollout: `kro rollout status|pause|resume|undo` — steering an RGD's rollout with the
// caller's rights: it reads the RGD and writes only the pause annotation and the verdicts of
// status.rollout; the controller does the moving. It builds on inputs only.
export { registerRolloutCommand } from "./rollout-command.js";
