/**
 * `kro import helm --release NAME -n NS [-o DIR] [--apply] [--remove-release-record]`: the live
 * half of `kro import helm` (the chart half, `kro import helm CHART`, imports files offline).
 * Prints the migration plan, writes CRD + RGD + instance, and with --apply migrates in place.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describePlan, describeReleaseHooks } from "../../helm/index.js";
import { createKubeClient } from "../../kube/index.js";
import { readChartFiles } from "./chart-files.js";
import { durationFlag, InputError } from "../inputs/index.js";
import { applyReleaseMigration } from "./helm-release-apply.js";
import { migrationFiles, prepareReleaseMigration } from "./helm-release.js";
import type { ReleaseImportFlags } from "./helm-release-options.js";

function parseLabels(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new InputError(`--rgd-label ${JSON.stringify(pair)}: expected key=value`);
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
}

export async function runReleaseImport(flags: ReleaseImportFlags): Promise<number> {
  if (flags.removeReleaseRecord === true && flags.apply !== true)
    throw new InputError(
      "--remove-release-record needs --apply (the record is removed only after the controller has adopted the release)",
    );
  const timeoutMs = durationFlag("--timeout", flags.timeout ?? "2m");
  const client = await createKubeClient({ kubeconfig: flags.kubeconfig, context: flags.context, env: process.env });
  try {
    const namespace = flags.namespace ?? client.defaultNamespace;
    const chartSource = flags.chart === undefined ? undefined : await readChartFiles(flags.chart);
    const migration = await prepareReleaseMigration(client, flags.release, namespace, {
      ...flags,
      rgdLabels: parseLabels(flags.rgdLabel ?? []),
      ...(chartSource === undefined ? {} : { chartSource }),
    });
    const log = (line: string) => process.stderr.write(`${line}\n`);
    log(
      `Helm release ${namespace}/${migration.release.name} revision ${migration.release.version} (chart ${migration.release.chart.metadata.name}-${migration.release.chart.metadata.version}, record in ${migration.driver}s) -> ${migration.instance.kind ?? ""} ${migration.release.name}`,
    );
    for (const warning of migration.imported.warnings)
      log(
        `warning: ${warning.file === undefined ? "" : `${warning.file}${warning.line === undefined ? "" : `:${warning.line}`}: `}${warning.message}`,
      );
    for (const line of describeReleaseHooks(migration.release.hooks)) log(`note: ${line}`);
    log("migration plan:");
    for (const line of describePlan(migration.plan)) log(line);
    const files = migrationFiles(migration);
    if (flags.output !== undefined) {
      await mkdir(flags.output, { recursive: true });
      for (const file of files) await writeFile(path.join(flags.output, file.name), file.text);
      log(`wrote ${files.map((f) => path.join(flags.output ?? "", f.name)).join(", ")}`);
    } else if (flags.apply !== true) {
      process.stdout.write(files.map((f) => f.text).join("---\n"));
    }
    if (flags.apply === true) {
      await applyReleaseMigration(client, migration, {
        timeoutMs,
        allowRollout: flags.allowRollout === true,
        removeReleaseRecord: flags.removeReleaseRecord === true,
        log,
      });
    }
    return 0;
  } finally {
    client.close();
  }
}
