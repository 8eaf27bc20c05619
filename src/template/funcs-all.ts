/** The function table a template sees: Go's built-ins, then Sprig's, then the caller's own. */
import { builtinFuncs } from "./builtins.js";
import { FuncError, goFunc, type FuncMap } from "./functions.js";
import { sprigDataFuncs } from "./sprig-data.js";
import { sprigDateFuncs } from "./sprig-dates.js";
import { sprigDictFuncs } from "./sprig-dicts.js";
import { sprigListFuncs } from "./sprig-lists.js";
import { sprigSemverFuncs } from "./sprig-semver.js";
import { sprigStringFuncs } from "./sprig-strings.js";
import { sprigTextFuncs } from "./sprig-text.js";

/**
 * Sprig functions we do not implement: durationRound, certificates and keys, bcrypt/AES, URLs and
 * TOML parsing. They parse (so a chart using them loads) and fail
 * when called, naming themselves; docs/design/template-engine.md lists them.
 */
export const UNSUPPORTED_FUNCTIONS = [
  "durationRound",
  "bcrypt", "htpasswd", "genPrivateKey", "derivePassword", "buildCustomCert", "genCA", "genCAWithKey", "genSelfSignedCert",
  "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey", "encryptAES", "decryptAES",
  "urlParse", "urlJoin", "getHostByName", "fromToml",
] as const;

const unsupported: FuncMap = Object.fromEntries(UNSUPPORTED_FUNCTIONS.map((name) => [name, goFunc([], () => {
  throw new FuncError(`${name} is not supported by kro-ts's template engine`);
}, "any")]));

export const sprigFuncs: FuncMap = { ...unsupported, ...sprigDateFuncs, ...sprigTextFuncs, ...sprigListFuncs, ...sprigDictFuncs, ...sprigSemverFuncs, ...sprigStringFuncs, ...sprigDataFuncs };

export function functionTable(sprig: boolean, extra: FuncMap | undefined): FuncMap {
  return { ...builtinFuncs, ...(sprig ? sprigFuncs : {}), ...(extra ?? {}) };
}
