/**
 * One version of one open document, compiled: what `kro validate` would report for it (through
 * the same `compileLoadedFile`) and the index of its RGDs for navigation and completion.
 */
import { loadYaml, type LoadedFile } from "../../api/index.js";
import type { CompileRgdOptions } from "../../graph/index.js";
import { compileLoadedFile, type CompiledFile } from "../compile/index.js";
import { isKind } from "../inputs/index.js";
import { indexRgd, type RgdIndex } from "./rgd-index.js";

export interface Analysis {
  readonly uri: string;
  readonly version: number;
  readonly loaded: LoadedFile;
  readonly compiled: CompiledFile;
  readonly rgds: readonly RgdIndex[];
}

export function analyze(uri: string, version: number, text: string, options: CompileRgdOptions): Analysis {
  const loaded = loadYaml(uri, text);
  const compiled = compileLoadedFile(loaded, options);
  const rgds = loaded.documents.filter((d) => isKind(d, "ResourceGraphDefinition")).map((d) => indexRgd(d, text));
  return { uri, version, loaded, compiled, rgds };
}
