/**
 * What the editor features read about the RGD under the cursor: its index, the schemas of kinds,
 * the CEL environment the compiler checks with and the functions it offers.
 */
import type { KroCelEnvironment } from "../../expr/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import type { CelFunctionCatalog } from "./cel-functions.js";
import type { RgdIndex } from "./rgd-index.js";

export interface RgdScope {
  readonly rgd: RgdIndex;
  readonly resolver: SchemaResolver;
  readonly env: KroCelEnvironment;
  readonly functions: CelFunctionCatalog;
}
