/**
 * Every template function that reads randomness or the clock, bound to one Entropy source. The
 * static function tables hold them bound to the system source; a render with a seeded source
 * (RenderOptions.entropy, HelmRenderOptions.entropy) overlays this table.
 */
import type { Entropy } from "./entropy.js";
import type { FuncMap } from "../go/index.js";
import { dateFuncs } from "./sprig-dates.js";
import { certFuncs } from "./sprig-certs.js";
import { randomFuncs } from "./sprig-random.js";
import { secretFuncs } from "./sprig-secrets.js";

/** Key generation and hashing charge the running render's work budget (go/work-budget.ts). */
export function entropyFuncs(entropy: Entropy): FuncMap {
  return { ...randomFuncs(entropy), ...dateFuncs(entropy), ...secretFuncs(entropy), ...certFuncs(entropy) };
}
