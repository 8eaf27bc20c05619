/**
 * `kro convert`: instances of an RGD's kind converted to another served version offline, with
 * the conversion the controller's webhook runs. Each instance is defaulted and validated against
 * its own version's schema first, so a failure is either the input's fault (with its position)
 * or the conversion's (naming the field).
 */
import type { Command } from "commander";
import { formatLocated, toYaml, type LoadedFile, type LocatedIssue } from "../../api/index.js";
import { error as issueError, hasErrors } from "../../diag/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import { DEFAULT_KUBE_MINOR } from "../../localcluster/index.js";
import { applySchemaDefaults, validateInstance, type KubeJson } from "../../runtime/index.js";
import { InputError, isKind, loadFiles, locate, schemaResolverFor } from "../inputs/index.js";
import { convertInstance } from "./instance-versions.js";

interface ConvertFlags {
  filename: string;
  rgd: string;
  to: string;
  output: string;
  crd?: string[];
  kubeVersion: string;
}

function report(located: readonly LocatedIssue[], files: readonly LoadedFile[]): void {
  for (const l of located) process.stderr.write(`${formatLocated(l, files.find((f) => f.file === l.file)?.text)}\n`);
}

async function compileRgdFile(flags: ConvertFlags): Promise<CompiledGraph | undefined> {
  const [file] = await loadFiles([flags.rgd]);
  if (file === undefined) return undefined;
  const document = file.documents.find((d) => isKind(d, "ResourceGraphDefinition"));
  if (file.problems.length > 0 || document === undefined) {
    report(
      file.problems.length > 0
        ? file.problems
        : [{ file: file.file, issue: issueError("cli.no-rgd", [], "no ResourceGraphDefinition found in this file") }],
      [file],
    );
    return undefined;
  }
  const result = compileRgd(document.value, {
    resolver: await schemaResolverFor(flags.kubeVersion, flags.crd ?? []),
    env: createKroCelEnvironment({ enableRuntime: true }),
  });
  report(
    result.issues.filter((i) => i.severity === "error").map((i) => locate(document, i)),
    [file],
  );
  return hasErrors(result.issues) ? undefined : result.graph;
}

async function convert(flags: ConvertFlags): Promise<number> {
  if (flags.output !== "yaml" && flags.output !== "json")
    throw new InputError(`unknown output format "${flags.output}": use yaml or json`);
  const graph = await compileRgdFile(flags);
  if (graph === undefined) return 1;
  if (graph.dialect !== "cel")
    throw new InputError(
      `${graph.name} uses the template dialect: its instances are your CRD's, converted by your CRD's own conversion`,
    );
  const [file] = await loadFiles([flags.filename]);
  if (file === undefined) return 1;
  if (file.problems.length > 0) {
    report(file.problems, [file]);
    return 1;
  }
  const documents = file.documents.filter((d) => isKind(d, graph.instance.kind));
  if (documents.length === 0) throw new InputError(`${file.file}: no ${graph.instance.kind} instance found`);
  const converted: KubeJson[] = [];
  let failed = false;
  for (const document of documents) {
    const instance = applySchemaDefaults(graph.crd, document.value as KubeJson);
    const invalid = validateInstance(graph.crd, instance);
    if (invalid.length > 0) {
      report(
        invalid.map((i) => locate(document, i)),
        [file],
      );
      failed = true;
      continue;
    }
    const result = convertInstance(graph, instance, flags.to);
    if (!result.ok) {
      report([locate(document, issueError("cli.conversion-failed", ["apiVersion"], result.message))], [file]);
      failed = true;
      continue;
    }
    converted.push(result.object);
  }
  if (failed) return 1;
  process.stdout.write(
    flags.output === "json"
      ? `${JSON.stringify(converted.length === 1 ? converted[0] : { apiVersion: "v1", kind: "List", items: converted }, null, 2)}\n`
      : converted.map((d) => toYaml(d)).join("---\n"),
  );
  return 0;
}

export function registerConvertCommand(program: Command): void {
  program
    .command("convert")
    .description(
      "convert instances of an RGD's kind to another served version of its API, offline, as the controller's conversion webhook does",
    )
    .requiredOption("-f, --filename <file>", "the instances (YAML, several documents allowed)")
    .requiredOption("--rgd <file>", "the RGD that declares the versions and their conversions")
    .requiredOption("--to <version>", "the target version, e.g. v1beta1")
    .option("-o, --output <format>", "yaml or json", "yaml")
    .option("--crd <file...>", "CRD files that define child kinds not built into Kubernetes")
    .option(
      "--kube-version <version>",
      "Kubernetes version whose built-in schemas to check against",
      DEFAULT_KUBE_MINOR,
    )
    .action(async (flags: ConvertFlags) => {
      process.exitCode = await convert(flags);
    });
}
