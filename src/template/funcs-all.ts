/** The function table a template sees: Go's built-ins, then Sprig's, then the caller's own. */
import { builtinFuncs } from "./builtins.js";
import type { FuncMap } from "./functions.js";
import { sprigDataFuncs } from "./sprig-data.js";
import { sprigStringFuncs } from "./sprig-strings.js";

export const sprigFuncs: FuncMap = { ...sprigStringFuncs, ...sprigDataFuncs };

export function functionTable(sprig: boolean, extra: FuncMap | undefined): FuncMap {
  return { ...builtinFuncs, ...(sprig ? sprigFuncs : {}), ...(extra ?? {}) };
}
