/** The `kro import helm --release … --apply` command line of the migration tests. */
export function migrateArgs(migration: {
  readonly release: string;
  readonly namespace: string;
  readonly kind: string;
  readonly group: string;
  /** `key=value`: the label the test's controller selects RGDs by. */
  readonly rgdLabel: string;
}): string[] {
  return [
    "import",
    "helm",
    "--release",
    migration.release,
    "-n",
    migration.namespace,
    "--kind",
    migration.kind,
    "--group",
    migration.group,
    "--rgd-label",
    migration.rgdLabel,
    "--apply",
    "--timeout",
    "90s",
  ];
}
