/**
 * Sprig v3.3.0's function families (strings, lists, dicts, dates, semver, URLs, crypto), the
 * libraries they port (Masterminds/semver, xstrings, DER) and the Entropy port their random and
 * time functions draw from. Builds on go/ alone: it may not import engine/ or helm/.
 */
export { seededEntropy, systemEntropy, type Entropy } from "./entropy.js";
export { entropyFuncs } from "./entropy-funcs.js";
export { sprigDataFuncs } from "./sprig-data.js";
export { sprigDictFuncs } from "./sprig-dicts.js";
export { sprigListFuncs } from "./sprig-lists.js";
export { sprigSemverFuncs } from "./sprig-semver.js";
export { sprigStringFuncs } from "./sprig-strings.js";
export { sprigTextFuncs } from "./sprig-text.js";
export { sprigUrlFuncs } from "./sprig-url.js";
export { secretPureFuncs } from "./sprig-secrets.js";
export { buildCustomCert, generateCaAndCertificate } from "./sprig-certs.js";
export { primeCost } from "./sprig-keys.js";
export { timeObject } from "./sprig-dates.js";
