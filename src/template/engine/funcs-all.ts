/** The function table a template sees: Go's built-ins, then Sprig's, then the caller's own. */
import { builtinFuncs } from "./builtins.js";
import {
  buildCustomCert,
  entropyFuncs,
  secretPureFuncs,
  sprigDataFuncs,
  sprigDictFuncs,
  sprigListFuncs,
  sprigSemverFuncs,
  sprigStringFuncs,
  sprigTextFuncs,
  sprigUrlFuncs,
  systemEntropy,
  type Entropy,
} from "../sprig/index.js";
import { FuncError, goFunc, type FuncMap } from "../go/index.js";

/**
 * Sprig functions we do not implement. They parse (so a chart using them loads) and fail when
 * called, naming themselves; docs/design/template-engine.md lists them.
 */
export const UNSUPPORTED_FUNCTIONS = ["durationRound"] as const;

const unsupported: FuncMap = {
  ...Object.fromEntries(
    UNSUPPORTED_FUNCTIONS.map((name) => [
      name,
      goFunc(
        [],
        () => {
          throw new FuncError(`${name} is not supported by kro-ts's template engine`);
        },
        "any",
      ),
    ]),
  ),
  // A render must not depend on the network (the controller renders on every resync). Helm's
  // engine, without --enable-dns, answers "" instead (helm/helm-engine.ts keeps that).
  getHostByName: goFunc(["string"], (host: string) => {
    throw new FuncError(
      `getHostByName ${JSON.stringify(host)}: kro-ts does not resolve DNS while rendering; pass the address in the instance's spec`,
    );
  }),
};

export const sprigFuncs: FuncMap = {
  ...unsupported,
  ...sprigTextFuncs,
  ...sprigListFuncs,
  ...sprigDictFuncs,
  ...sprigSemverFuncs,
  ...sprigStringFuncs,
  ...sprigDataFuncs,
  ...secretPureFuncs,
  ...sprigUrlFuncs,
  buildCustomCert,
  ...entropyFuncs(systemEntropy),
};

// Tables by the caller's own functions (Helm's and the compiler's are module constants, read as
// they are at their first use): an import of test/fixtures/helm/umbrella asked for a table 17
// times, and copying ~230 entries each time cost ~10 ms of a ~350 ms
// `kro import helm` (docs/performance-archive.md "CLI start"). Nothing writes to a table:
// withEntropy puts its functions on an object that inherits from it (not frozen, so that it may
// shadow them).
const NO_EXTRA: FuncMap = {};
const tables = { sprig: new WeakMap<FuncMap, FuncMap>(), plain: new WeakMap<FuncMap, FuncMap>() };

export function functionTable(sprig: boolean, extra: FuncMap | undefined): FuncMap {
  const byExtra = sprig ? tables.sprig : tables.plain;
  const key = extra ?? NO_EXTRA;
  let table = byExtra.get(key);
  if (table === undefined) {
    table = { ...builtinFuncs, ...(sprig ? sprigFuncs : {}), ...key };
    byExtra.set(key, table);
  }
  return table;
}

/**
 * `funcs` with its Sprig random and time functions drawing from `entropy` instead; a function the
 * caller replaced (ParseOptions.funcs) stays the caller's.
 */
export function withEntropy(funcs: FuncMap, entropy: Entropy): FuncMap {
  // The table inherits from `funcs` (the executor only indexes it): no copy of ~230 entries.
  const out = Object.create(funcs) as Record<string, FuncMap[string]>;
  for (const [name, f] of Object.entries(entropyFuncs(entropy))) {
    if (funcs[name] === sprigFuncs[name]) out[name] = f;
  }
  return out;
}

const ENTROPY_NAMES = new RegExp(`\\b(?:${Object.keys(entropyFuncs(systemEntropy)).join("|")})\\b`);
/** Whether a template's text names any random or time function (a cheap, conservative test). */
export const mayUseEntropy = (text: string): boolean => ENTROPY_NAMES.test(text);
