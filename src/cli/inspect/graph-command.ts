/**
 * `kro graph -f FILE [--format text|mermaid|dot|svg] [-o FILE]`: the dependency graph of an RGD
 * as a picture. With `--instance NAME [--namespace NS]` the nodes are coloured by the live state
 * of that instance on a cluster (`--kubeconfig`, `--context`), evaluated as the controller would.
 */
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { hasErrors } from "../../diag/index.js";
import {
  PICTURE_FORMATS,
  graphPicture,
  type CompiledGraph,
  type NodeState,
  type PictureFormat,
} from "../../graph/index.js";
import { compileFiles, printDiagnostics, withSchemaSources, type SchemaSourceFlags } from "../compile/index.js";
import { createKubeClient } from "../../kube/index.js";
import { InputError } from "../inputs/index.js";
import { evaluateLiveInstance, renderSvg } from "../../inspect/index.js";
import { liveColors } from "./node-status.js";

const FORMATS = [...PICTURE_FORMATS, "svg"] as const;
type GraphFormat = (typeof FORMATS)[number];

const isFormat = (value: string): value is GraphFormat => (FORMATS as readonly string[]).includes(value);

interface GraphFlags extends SchemaSourceFlags {
  readonly filename: string;
  readonly format: string;
  readonly output?: string;
  readonly instance?: string;
  readonly namespace?: string;
}

export function registerGraphCommand(program: Command): void {
  withSchemaSources(program.command("graph"))
    .description(
      "draw the dependency graph of an RGD: the instance as root, nodes with id and kind, edges for dependencies",
    )
    .requiredOption("-f, --filename <file>", "the RGD file")
    .option("--format <format>", `one of ${FORMATS.join(", ")}`, "text")
    .option("-o, --output <file>", "write the picture to this file instead of stdout")
    .option(
      "--instance <name>",
      "colour the nodes by the live state of this instance (reads the cluster of --kubeconfig/--context)",
    )
    .option("-n, --namespace <ns>", "namespace of --instance (default: the kubeconfig context's)")
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
      if (graph === undefined || graphs.length !== 1)
        throw new InputError(
          `${flags.filename} holds ${graphs.length} ResourceGraphDefinitions; kro graph draws exactly one`,
        );
      const colorBy = flags.instance === undefined ? undefined : await liveColorBy(graph, flags.instance, flags);
      const options = colorBy === undefined ? {} : { colorBy };
      const picture =
        format === "svg"
          ? await renderSvg(graphPicture(graph, "dot", options))
          : graphPicture(graph, format satisfies PictureFormat, options);
      if (flags.output === undefined) process.stdout.write(picture);
      else await writeFile(flags.output, picture);
    });
}

async function liveColorBy(graph: CompiledGraph, name: string, flags: GraphFlags): Promise<Record<string, NodeState>> {
  const client = await createKubeClient({ kubeconfig: flags.kubeconfig, context: flags.context, env: process.env });
  try {
    const { group, version, kind } = graph.instance;
    // The template dialect's kind is the user's CRD: only the server knows its scope.
    const info = await client.resourceFor(group === "" ? version : `${group}/${version}`, kind);
    const namespace = info.namespaced ? (flags.namespace ?? client.defaultNamespace) : undefined;
    return liveColors(await evaluateLiveInstance(client, graph, namespace, name));
  } finally {
    client.close();
  }
}
