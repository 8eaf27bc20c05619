/**
 * `kro import helm --release … --apply`: install the imported CRD, RGD and adopting instance, wait
 * until the controller has taken the release's objects over (instance Ready), and prove it did so
 * in place: every adopted object still has the UID it had under Helm. Only then is Helm's release
 * record changed (helm-release-record.ts): marked `uninstalled`, naming the instance, or with
 * `--remove-release-record` deleted, so `helm` forgets the release without touching its objects.
 */
import { describeReleaseObject, type ObjectIdentity } from "../../helm/index.js";
import { DiscoveryError, type KubeClient, type KubeObject } from "../../kube/index.js";
import { readInventory } from "../../controller/index.js";
import { InputError } from "../inputs/index.js";
import type { ReleaseMigration } from "./helm-release.js";
import { markReleaseRecord, removeReleaseRecord } from "./helm-release-record.js";

/** The field manager of what the migration applies (the controller applies the children under its own). */
export const MIGRATE_FIELD_MANAGER = "kro-import";

export interface MigrationApplySettings {
  /** How long to wait for each of: CRD established, RGD Active, instance Ready. */
  readonly timeoutMs: number;
  /** Accept a migration whose plan rolls pods (a pod template the import renders differently). */
  readonly allowRollout: boolean;
  readonly removeReleaseRecord: boolean;
  readonly log: (line: string) => void;
}

type Status = { state?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
const statusOf = (object: KubeObject): Status => (object as { status?: Status }).status ?? {};
const condition = (object: KubeObject, type: string) => statusOf(object).conditions?.find((c) => c.type === type);

async function waitFor(
  what: string,
  timeoutMs: number,
  probe: () => Promise<{ done: boolean; state: string }>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const { done, state } = await probe();
    if (done) return;
    last = state;
    if (Date.now() >= deadline)
      throw new InputError(`${what}: still not there after ${Math.round(timeoutMs / 1000)} s (${last})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const refOf = (object: KubeObject) => ({
  apiVersion: object.apiVersion ?? "",
  kind: object.kind ?? "",
  name: object.metadata?.name ?? "",
  ...(object.metadata?.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
});
const idRef = (id: ObjectIdentity) => ({
  apiVersion: id.apiVersion,
  kind: id.kind,
  name: id.name,
  ...(id.namespace === undefined ? {} : { namespace: id.namespace }),
});

/** Refuses a migration that would roll pods, naming every pod-template field that differs. */
export function checkZeroDowntime(migration: ReleaseMigration, allowRollout: boolean): void {
  const rolling = migration.plan.adopt.filter((a) => a.restarts.length > 0);
  if (rolling.length === 0 || allowRollout) return;
  const lines = rolling.flatMap((a) => [
    `  ${describeReleaseObject(a.identity)}:`,
    ...a.restarts.map((c) => `      ${c.path}: ${JSON.stringify(c.live)} -> ${JSON.stringify(c.desired)}`),
  ]);
  throw new InputError(
    `adopting release ${migration.release.namespace}/${migration.release.name} would roll the pods of ${rolling.length} workload(s), because the import renders their pod template differently from what is live:\n${lines.join("\n")}\nNothing was written. Fix the chart or the live objects, or pass --allow-rollout to accept a rolling update.`,
  );
}

/**
 * Sends what the migration writes first — the CRD and the RGD — as server-side dry runs, so one
 * the API server refuses (a schema it does not accept as structural, say) stops the migration
 * before anything is written. The instance cannot be judged so: its kind's schema is the new CRD.
 */
export async function preflightMigration(client: KubeClient, migration: ReleaseMigration): Promise<void> {
  const { crd, rgd } = migration.imported;
  const refusals: string[] = [];
  const tryApply = async (object: KubeObject, what: string) => {
    try {
      await client.apply(object, { fieldManager: MIGRATE_FIELD_MANAGER, dryRun: true });
    } catch (error) {
      refusals.push(`  ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const nameOf = (object: { metadata?: unknown }) => (object.metadata as { name?: string } | undefined)?.name ?? "";
  await tryApply(crd, `CustomResourceDefinition ${nameOf(crd)}`);
  await tryApply(rgd, `ResourceGraphDefinition ${nameOf(rgd)}`);
  if (refusals.length > 0)
    throw new InputError(
      `the API server refuses what the migration of release ${migration.release.namespace}/${migration.release.name} would write (server-side dry run):\n${refusals.join("\n")}\nNothing was written.`,
    );
}

export async function applyReleaseMigration(
  client: KubeClient,
  migration: ReleaseMigration,
  settings: MigrationApplySettings,
): Promise<void> {
  checkZeroDowntime(migration, settings.allowRollout);
  await preflightMigration(client, migration);
  const { crd, rgd } = migration.imported;
  const crdName = (crd.metadata as { name?: string } | undefined)?.name ?? "";
  const rgdName = (rgd.metadata as { name?: string } | undefined)?.name ?? "";
  const instance = migration.instance;
  const instanceName = `${instance.kind ?? ""} ${instance.metadata?.namespace ?? ""}/${instance.metadata?.name ?? ""}`;

  await client.apply(crd, { fieldManager: MIGRATE_FIELD_MANAGER });
  await waitFor(`CustomResourceDefinition ${crdName} established`, settings.timeoutMs, async () => {
    const live = await client.get({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      name: crdName,
    });
    const established = condition(live, "Established");
    return { done: established?.status === "True", state: established?.message ?? "not established" };
  });
  settings.log(`applied CustomResourceDefinition ${crdName}`);

  await client.apply(rgd, { fieldManager: MIGRATE_FIELD_MANAGER });
  await waitFor(
    `ResourceGraphDefinition ${rgdName} Active (is a kro-ts controller running? \`kro controller\`)`,
    settings.timeoutMs,
    async () => {
      const live = await client.get(refOf(rgd as KubeObject));
      const state = statusOf(live).state;
      return { done: state === "Active", state: `state ${state ?? "unset"}` };
    },
  );
  settings.log(`applied ResourceGraphDefinition ${rgdName}: Active`);

  if (migration.instanceExists)
    settings.log(
      `${instanceName} exists (migrated before): its spec is kept, not reset to the release record's values`,
    );
  else {
    // An Established CRD can still be missing from discovery for a moment: retry until it is served.
    await waitFor(`kind ${instance.kind ?? ""} served`, settings.timeoutMs, async () => {
      try {
        await client.apply(instance, { fieldManager: MIGRATE_FIELD_MANAGER });
        return { done: true, state: "" };
      } catch (error) {
        if (error instanceof DiscoveryError) return { done: false, state: error.message };
        throw error;
      }
    });
  }
  let recorded = new Set<string>();
  await waitFor(`${instanceName} Ready`, settings.timeoutMs, async () => {
    const live = await client.get(refOf(instance));
    const ready = condition(live, "Ready");
    recorded = new Set(readInventory(live).entries.map((entry) => entry.uid));
    const why = condition(live, "ResourcesReady")?.message ?? ready?.message ?? "";
    return {
      done: ready?.status === "True",
      state: `Ready=${ready?.status ?? "unset"}${why === "" ? "" : `: ${why}`}`,
    };
  });
  settings.log(`applied ${instanceName}: Ready`);

  // The proof of "in place": same UIDs as before the migration, and on the instance's record.
  for (const adopted of migration.plan.adopt) {
    const live = await client.get(idRef(adopted.identity));
    const uid = live.metadata?.uid ?? "";
    if (uid !== adopted.uid)
      throw new InputError(
        `${describeReleaseObject(adopted.identity)} was recreated during the migration (uid ${adopted.uid} -> ${uid})`,
      );
    if (!recorded.has(uid))
      throw new InputError(
        `${describeReleaseObject(adopted.identity)} is not on ${instanceName}'s record of adopted objects`,
      );
  }
  settings.log(
    `adopted ${migration.plan.adopt.length} object(s) in place (same UIDs): ${migration.plan.adopt.map((a) => describeReleaseObject(a.identity)).join(", ")}`,
  );
  for (const id of migration.plan.create) settings.log(`created ${describeReleaseObject(id)} (not live before)`);

  if (settings.removeReleaseRecord) await removeReleaseRecord(client, migration, settings.log);
  else await markReleaseRecord(client, migration, instance, settings.log);
}
