/**
 * `kro import helm CHART`: a chart directory or .tgz → the CRD of a new kind, a template-dialect
 * RGD and an example instance (src/helm does the work; this reads files and writes results).
 * Warnings name the chart file and line; any failure exits non-zero with the file and line.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { formatLocated, toYaml } from "../../api/index.js";
import { importHelmChart, isHelmImportError, type HelmImportResult } from "../../helm/index.js";
import { readChartFiles } from "./chart-files.js";
import { scopeReport } from "./import-scope-report.js";
import { addReleaseImportOptions, type ReleaseImportFlags } from "./helm-release-options.js";
import { InputError, loadFiles } from "../inputs/index.js";

export interface ImportHelmFlags {
  values?: string[];
  kind?: string;
  group?: string;
  version?: string;
  output?: string;
  kubeVersion?: string;
  apiVersions?: string[];
  releaseName?: string;
  namespace?: string;
}

async function readValues(files: readonly string[]): Promise<object[]> {
  const loaded = await loadFiles(files);
  return loaded.map((file) => {
    const [problem] = file.problems;
    if (problem !== undefined) throw new InputError(formatLocated(problem, file.text));
    const value: unknown = file.documents[0]?.value ?? {};
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new InputError(`${file.file}: a values file must be a YAML map`);
    return value;
  });
}

/** Writes crds/ (the chart's own), crd.yaml, rgd.yaml and instance.yaml into `dir`; returns the paths. */
export async function writeImportResult(result: HelmImportResult, dir: string): Promise<string[]> {
  const written: string[] = [];
  const put = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    written.push(file);
  };
  for (const crd of result.crdFiles) await put(path.join("chart-crds", crd.path.replaceAll("/", "_")), crd.text);
  await put("crd.yaml", toYaml(result.crd));
  await put("rgd.yaml", toYaml(result.rgd));
  await put("instance.yaml", toYaml(result.instance));
  return written;
}

export function printWarnings(result: HelmImportResult, chart: string): void {
  for (const w of result.warnings) {
    const where =
      w.file === undefined ? chart : `${path.join(chart, w.file)}${w.line === undefined ? "" : `:${w.line}`}`;
    process.stderr.write(`${where}: warning: ${w.message}\n`);
  }
}

async function importHelm(chart: string, flags: ImportHelmFlags): Promise<number> {
  const files = await readChartFiles(chart);
  const values = await readValues(flags.values ?? []);
  let result: HelmImportResult;
  try {
    result = importHelmChart(files, {
      values,
      ...(flags.kind === undefined ? {} : { kind: flags.kind }),
      ...(flags.group === undefined ? {} : { group: flags.group }),
      ...(flags.version === undefined ? {} : { version: flags.version }),
      ...(flags.kubeVersion === undefined ? {} : { kubeVersion: flags.kubeVersion }),
      ...(flags.apiVersions === undefined
        ? {}
        : {
            apiVersions: flags.apiVersions
              .flatMap((v) => v.split(","))
              .map((v) => v.trim())
              .filter((v) => v !== ""),
          }),
      ...(flags.releaseName === undefined ? {} : { releaseName: flags.releaseName }),
      ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
    });
  } catch (error) {
    if (!isHelmImportError(error)) throw error;
    const where = error.file === undefined ? chart : path.join(chart, error.file);
    throw new InputError(
      `${where}${error.line === undefined ? "" : `:${error.line}`}: ${error.message.replace(/^[^:]+(:\d+)?: /, "")}`,
    );
  }
  printWarnings(result, chart);
  for (const note of await scopeReport(result, flags.kubeVersion)) process.stderr.write(`${chart}: note: ${note}\n`);
  if (flags.output === undefined) {
    const documents = [
      ...result.crdFiles.map((c) => c.text.trim()),
      toYaml(result.crd).trim(),
      toYaml(result.rgd).trim(),
      toYaml(result.instance).trim(),
    ];
    process.stdout.write(`${documents.join("\n---\n")}\n`);
  } else {
    for (const file of await writeImportResult(result, flags.output)) process.stdout.write(`wrote ${file}\n`);
  }
  return 0;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerImportCommands(program: Command): void {
  const importCommand = program.command("import").description("turn other packaging formats into kro-ts APIs");
  const helm = importCommand
    .command("helm")
    .argument("[chart]", "a chart directory or a packaged chart (.tgz); or --release NAME for a live release")
    .description(
      "turn a Helm chart into a CRD (spec = the chart's values), a template-dialect RGD and an example instance; offline",
    )
    .option("-f, --values <file>", "a values file over the chart's values.yaml (repeatable, later wins)", collect)
    .option("--kind <kind>", "kind of the new API (default: the chart name in UpperCamelCase + App)")
    .option("--group <group>", "API group of the new kind", "helm.kro.run")
    .option("--version <version>", "API version of the new kind", "v1alpha1")
    .option(
      "--release-name <name>",
      "metadata.name of the example instance (Helm's release name; default: the chart name)",
    )
    .option("-n, --namespace <namespace>", "metadata.namespace of the example instance", "default")
    .option(
      "--kube-version <version>",
      "Kubernetes version templates see as .Capabilities.KubeVersion offline (e.g. v1.33.0)",
    )
    .option(
      "-a, --api-versions <versions>",
      "more API versions templates see in .Capabilities.APIVersions offline, as helm template --api-versions (repeatable or comma-separated, e.g. monitoring.coreos.com/v1)",
      collect,
    )
    .option(
      "-o, --output <dir>",
      "write crd.yaml, rgd.yaml, instance.yaml (and the chart's crds/) into this directory instead of printing them",
    )
    .addHelpText(
      "after",
      `
Apply the chart's own CRDs (if any) and crd.yaml first, then rgd.yaml, then the instance.
Warnings name the chart file and line of everything that is not carried over exactly.`,
    )
    .action(async (chart: string | undefined, flags: ImportHelmFlags & Partial<ReleaseImportFlags>) => {
      // `--release`: the live migration (helm-release-command.ts).
      if (flags.release !== undefined) {
        if (chart !== undefined) throw new InputError("give a CHART or --release NAME, not both");
        // Loaded only for a live migration: a chart import needs no cluster client.
        const { runReleaseImport } = await import("./helm-release-command.js");
        process.exitCode = await runReleaseImport({ ...flags, release: flags.release });
        return;
      }
      if (chart === undefined)
        throw new InputError("kro import helm needs a CHART (directory or .tgz) or --release NAME");
      process.exitCode = await importHelm(chart, flags);
    });
  addReleaseImportOptions(helm);
}
