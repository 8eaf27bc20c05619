/**
 * instance: one instance reconcile, top to bottom in reconcile.ts — observe, plan (pure), apply,
 * record, status — plus deletion, the ownership record and the decisions it rests on. It may use
 * the watches, helm and context rooms through their doors; it never touches RGDs or CRDs.
 */
export { childOwnerRouter } from "./label-routing.js";
export { reconcileInstance } from "./reconcile.js";
export { DEFAULT_EVALUATION_TIMEOUT_MS } from "./runtime-options.js";
