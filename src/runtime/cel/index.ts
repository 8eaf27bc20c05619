/**
 * The CEL dialect's evaluator (`${…}`): owns evaluation of includeWhen, templates, forEach,
 * external references, readyWhen and status for CEL graphs. It may not touch the template
 * dialect's room, and never does I/O.
 */
export { createCelEvaluator } from "./evaluator.js";
export { unmetHealthCheck } from "./rollout-health.js";
