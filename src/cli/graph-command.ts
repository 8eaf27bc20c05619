/**
 * `kro graph -f FILE [--format text|mermaid|dot|svg] [-o FILE]`: the dependency graph of an RGD
 * as a picture (the live `--instance` overlay belongs to the controller issue and is not here).
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { hasErrors } from "../diag/index.js";
import { PICTURE_FORMATS, graphPicture, type PictureFormat } from "../graph/index.js";
import { compileFiles, printDiagnostics, withSchemaSources, type SchemaSourceFlags } from "./compile-commands.js";
import { InputError } from "./inputs.js";
import { renderSvg } from "./render-svg.js";

const FORMATS = [...PICTURE_FORMATS, "svg"] as const;
type GraphFormat = (typeof FORMATS)[number];

const isFormat = (value: string): value is GraphFormat => (FORMATS as readonly string[]).includes(value);

interface GraphFlags extends SchemaSourceFlags {
  readonly filename: string;
  readonly format: string;
  readonly output?: string;
}

export function registerGraphCommand(program: Command): void {
  withSchemaSources(program
    .command("graph"))
    .description("draw the dependency graph of an RGD: the instance as root, nodes with id and kind, edges for dependencies")
    .requiredOption("-f, --filename <file>", "the RGD file")
    .option("--format <format>", `one of ${FORMATS.join(", ")}`, "text")
    .option("-o, --output <file>", "write the picture to this file instead of stdout")
    .action(async (flags: GraphFlags) => {
      const format = flags.format;
      if (!isFormat(format)) throw new InputError(`unknown format "${format}": use ${FORMATS.join(", ")}`);
      const { loaded, results } = await compileFiles([flags.filename], flags);
      printDiagnostics(loaded, results);
      if (hasErrors(results.flatMap((r) => r.located.map((l) => l.issue)))) {
        process.exitCode = 1;
        return;
      }
      const graphs = results.flatMap((r) => r.graphs);
      const [graph] = graphs;
      if (graph === undefined || graphs.length !== 1) throw new InputError(`${flags.filename} holds ${graphs.length} ResourceGraphDefinitions; kro graph draws exactly one`);
      const picture = format === "svg" ? await renderSvg(graphPicture(graph, "dot")) : graphPicture(graph, format satisfies PictureFormat);
      if (flags.output === undefined) process.stdout.write(picture);
      else await writeFile(flags.output, picture);
    });
}
