/**
 * The flags of `kro import helm --release`, apart from the code that acts on them
 * (helm-release-command.ts): `kro import helm CHART` declares them without loading the cluster
 * client, the compiler and the runtime that only a live migration needs, so
 * that a plain import starts fast.
 */
import type { Command } from "commander";

export interface ReleaseImportFlags {
  readonly release: string;
  readonly namespace?: string;
  readonly output?: string;
  readonly kind?: string;
  readonly group?: string;
  readonly version?: string;
  readonly apply?: boolean;
  readonly removeReleaseRecord?: boolean;
  readonly allowRollout?: boolean;
  readonly timeout?: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  /** The chart the release was installed from: supplies the subcharts Helm does not keep in the record. */
  readonly chart?: string;
  /** `key=value` labels for the RGD (to land it on the controller shard whose --rgd-selector matches). */
  readonly rgdLabel?: string[];
}

/** The options of the --release path, added to `import helm` (which has -n, -o, --kind, --group, --version already). */
export function addReleaseImportOptions(command: Command): Command {
  return command
    .option(
      "--release <name>",
      "migrate this live Helm 3 release instead of a chart: read its release record from the cluster",
    )
    .option(
      "--chart <path>",
      "with --release: the chart (directory or .tgz, same name and version) the release was installed from; needed when it has subcharts, which Helm does not keep in the release record",
    )
    .option(
      "--apply",
      "with --release: install the CRD, RGD and instance; the controller adopts the release's objects in place",
    )
    .option(
      "--remove-release-record",
      "with --apply: once the instance is Ready, delete Helm's release record (helm forgets the release; its objects stay)",
    )
    .option(
      "--allow-rollout",
      "with --apply: accept a migration that rolls pods (the import renders a pod template differently)",
    )
    .option(
      "--timeout <duration>",
      "with --apply: wait this long for each step (CRD, RGD Active, instance Ready)",
      "2m",
    )
    .option("--kubeconfig <file>", "kubeconfig (default $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option(
      "--rgd-label <key=value...>",
      "label the RGD (e.g. for the controller whose --rgd-selector should serve it)",
    );
}
