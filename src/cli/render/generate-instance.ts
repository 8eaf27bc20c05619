/**
 * `kro generate instance -f rgd.yaml`: a commented sample instance of the RGD's kind — every
 * required field with a value that satisfies its schema, defaults shown, allowed values listed,
 * optional fields commented out (`--all` fills them in, as kro's emulator does). The sample is
 * parsed back, defaulted and validated against the CRD before it is printed, so what comes out
 * is accepted by the API server; a field whose CEL rule the placeholder cannot satisfy is named.
 */
import type { Command } from "commander";
import { formatLocated, loadYaml, type LocatedIssue } from "../../api/index.js";
import { formatPath, hasErrors } from "../../diag/index.js";
import { crdDefines, type CompiledGraph } from "../../graph/index.js";
import { applySchemaDefaults, validateInstance, type KubeJson } from "../../runtime/index.js";
import { sampleInstance, type CustomResourceDefinition } from "../../schema/index.js";
import { compileFiles, printDiagnostics, withSchemaSources, type SchemaSourceFlags } from "../compile/index.js";
import { InputError, isKind, loadFiles } from "../inputs/index.js";

interface GenerateInstanceFlags extends SchemaSourceFlags {
  readonly filename: string;
  readonly output: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly all?: boolean;
}

/** The CRD instances are checked against: generated (CEL dialect) or the user's, from --crd (template dialect). */
async function crdOf(graph: CompiledGraph, crdFiles: readonly string[]): Promise<CustomResourceDefinition> {
  if (graph.dialect === "cel") return graph.crd;
  const crds = (await loadFiles(crdFiles)).flatMap((f) =>
    f.documents.filter((d) => isKind(d, "CustomResourceDefinition")).map((d) => d.value),
  );
  const crd = crds.find((c) => crdDefines(c, graph.instance));
  const { kind, group, version } = graph.instance;
  if (crd === undefined)
    throw new InputError(
      `${graph.name} uses the template dialect: its instances are defined by your CRD for ${kind}.${group}/${version}; pass it with --crd <file>`,
    );
  return crd as CustomResourceDefinition;
}

export function generateInstanceYaml(
  graph: CompiledGraph,
  crd: CustomResourceDefinition,
  flags: Pick<GenerateInstanceFlags, "name" | "namespace" | "all">,
): { yaml: string; value: KubeJson; problems: LocatedIssue[] } {
  const header = [
    `${crd.spec.names.kind} (${crd.spec.group}) — a sample instance of ResourceGraphDefinition ${graph.name}, from \`kro generate instance\`.`,
    "Required fields hold placeholder values: replace them. Defaulted fields show their default (the API",
    flags.all === true
      ? "server fills them in when omitted). Every optional field is filled in (--all)."
      : "server fills them in when omitted). Optional fields without a default are commented out.",
  ];
  const { yaml } = sampleInstance(crd, { ...flags, allFields: flags.all === true, header });
  const parsed = loadYaml("<sample>", yaml);
  const value = (parsed.documents[0]?.value ?? {}) as KubeJson;
  const problems = [...parsed.problems];
  // What the API server would check: defaults applied, then the schema (CEL rules included).
  for (const issue of validateInstance(crd, applySchemaDefaults(crd, value))) {
    problems.push({
      file: "<sample>",
      issue: {
        ...issue,
        severity: "warning",
        message: `the placeholder does not satisfy the schema: ${formatPath(issue.path)}: ${issue.message}`,
      },
    });
  }
  return { yaml, value, problems };
}

/** Adds `instance` under the `generate` command that registerCompileCommands made. */
export function registerGenerateInstance(program: Command): void {
  const generate = program.commands.find((c) => c.name() === "generate");
  if (generate === undefined) throw new Error("registerCompileCommands must run first");
  withSchemaSources(generate.command("instance"))
    .description("print a commented sample instance of an RGD's kind: required fields, defaults, allowed values")
    .requiredOption("-f, --filename <file>", "the RGD file")
    .option("-o, --output <format>", "yaml (commented) or json", "yaml")
    .option("--name <name>", "metadata.name of the sample (default <kind>-sample)")
    .option("-n, --namespace <ns>", "metadata.namespace of a namespaced kind", "default")
    .option("--all", "fill in every optional field too (kro's emulator behaviour) instead of commenting them out")
    .addHelpText(
      "after",
      `
The sample is validated against the CRD before it is printed (exit 0). A field whose rule a
placeholder cannot satisfy (an x-kubernetes-validations CEL rule, say) is named on stderr as a
warning: fill it in. Template-dialect RGDs need their CRD: --crd <file>. Exit 1: the RGD does
not compile.`,
    )
    .action(async (flags: GenerateInstanceFlags) => {
      if (flags.output !== "yaml" && flags.output !== "json")
        throw new InputError(`unknown output format "${flags.output}": use yaml or json`);
      const { loaded, results } = await compileFiles([flags.filename], flags);
      if (hasErrors(results.flatMap((r) => r.located.map((l) => l.issue)))) {
        printDiagnostics(loaded, results);
        process.exitCode = 1;
        return;
      }
      const graphs = results.flatMap((r) => r.graphs);
      const [graph] = graphs;
      if (graph === undefined || graphs.length !== 1)
        throw new InputError(
          `${flags.filename} holds ${graphs.length} ResourceGraphDefinitions; kro generate instance takes exactly one`,
        );
      const sample = generateInstanceYaml(graph, await crdOf(graph, flags.crd ?? []), flags);
      for (const problem of sample.problems)
        process.stderr.write(`kro: warning: ${formatLocated(problem).replace(/^<sample>: (warning|error): /, "")}\n`);
      process.stdout.write(flags.output === "json" ? `${JSON.stringify(sample.value, null, 2)}\n` : sample.yaml);
    });
}
