/**
 * Every template function that reads randomness or the clock, bound to one Entropy source. The
 * static function tables hold them bound to the system source; a render with a seeded source
 * (RenderOptions.entropy, HelmRenderOptions.entropy) overlays this table.
 */
import type { Entropy } from "./entropy.js";
import type { FuncMap } from "../go/index.js";
import { dateFuncs } from "./sprig-dates.js";
import { certFuncs } from "./sprig-certs.js";
import { unlimitedKeys, type KeyBudget } from "./sprig-keys.js";
import { randomFuncs } from "./sprig-random.js";
import { secretFuncs } from "./sprig-secrets.js";

/**
 * `budget`: the static tables have none; a render's own table (renderTemplate, each file of
 * renderHelmTemplates) gets renderKeyBudget(), so RSA key generation is capped per render.
 */
export function entropyFuncs(entropy: Entropy, budget: KeyBudget = unlimitedKeys()): FuncMap {
  return { ...randomFuncs(entropy), ...dateFuncs(entropy), ...secretFuncs(entropy), ...certFuncs(entropy, budget) };
}
