/**
 * What `kro import helm --release --apply` writes to Helm's release record once the instance is
 * Ready and the UIDs are proven (helm-migration.md, "The Helm release record afterwards"): by
 * default the newest revision is marked `uninstalled`, naming the instance (src/helm/release-mark.ts),
 * so Helm neither lists the release as deployed nor upgrades or uninstalls the objects kro-ts now
 * manages; with --remove-release-record every revision is deleted. Each write is guarded: the
 * mark by the record's resourceVersion and UID (a record Helm changed since it was read is not
 * overwritten), the removal by UID.
 */
import { markedRecord, migratedDescription } from "../../helm/index.js";
import { isConflict, type KubeClient, type KubeObject } from "../../kube/index.js";
import { InputError } from "../inputs/index.js";
import type { LiveRelease } from "./helm-release.js";

const refOf = (object: KubeObject, kind: string) => ({
  apiVersion: "v1",
  kind,
  name: object.metadata?.name ?? "",
  ...(object.metadata?.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
});

/** The instance as the record names it: `Kind namespace/name (apiVersion)`. */
export const migrationTarget = (instance: KubeObject): string =>
  `${instance.kind ?? ""} ${instance.metadata?.namespace ?? ""}/${instance.metadata?.name ?? ""} (${instance.apiVersion ?? ""})`;

/** Marks the newest revision as migrated to `instance`; says so, or that an earlier run did. */
export async function markReleaseRecord(
  client: KubeClient,
  live: LiveRelease,
  instance: KubeObject,
  log: (line: string) => void,
): Promise<void> {
  const target = migrationTarget(instance);
  const { name, namespace, version } = live.release;
  const where = `${live.driver} ${namespace}/${live.newest.metadata?.name ?? ""}`;
  if (live.migratedTo === target) {
    log(`Helm's release record ${where} was marked uninstalled (migrated to ${target}) by an earlier run`);
    return;
  }
  const marked = markedRecord(live.newest, target);
  if (marked.metadata?.resourceVersion === undefined || marked.metadata.uid === undefined)
    throw new InputError(`${where} has no resourceVersion or uid to guard the write with`);
  try {
    // A replace carrying the resourceVersion and uid read: refused if Helm wrote the record since.
    await client.replace(marked);
  } catch (error) {
    if (isConflict(error))
      throw new InputError(
        `${where} changed since it was read (a helm command ran during the migration?), so it was not marked; the instance manages the objects now: check \`helm history ${name} -n ${namespace}\` and run the migration again`,
      );
    throw error;
  }
  log(
    `marked Helm's release ${namespace}/${name} revision ${version} uninstalled: "${migratedDescription(target)}". \`helm list\` no longer shows it as deployed, \`helm upgrade\` refuses it, \`helm uninstall\` removes only the record; --remove-release-record deletes the record altogether`,
  );
}

/** Deletes every revision's record, each guarded by its UID; the objects are untouched. */
export async function removeReleaseRecord(
  client: KubeClient,
  live: LiveRelease,
  log: (line: string) => void,
): Promise<void> {
  for (const record of live.records) {
    const uid = record.metadata?.uid;
    await client.delete(refOf(record, live.driver), uid === undefined ? {} : { preconditions: { uid } });
  }
  log(
    `removed Helm's release record (${live.records.length} revision(s), ${live.driver}s owner=helm,name=${live.release.name}): \`helm list\` no longer shows it, its objects are untouched`,
  );
}
