// cli/process: the Node process of a long-running command — heap limits, the young-generation
// governor, collection when idle, shutdown on a signal. It knows no command and no other room.
export { applyHeapLimits, youngGenerationMayGrow } from "./heap-limits.js";
export { untilSignal } from "./signals.js";
