/**
 * The cluster side of `kro import helm --release NAME -n NS`: read the release record Helm keeps
 * in the cluster, import its chart with the release's values, and show what adopting the live
 * objects would do (migration-plan.ts in src/helm). The writes (`--apply`,
 * `--remove-release-record`) are in helm-release-apply.ts.
 */
import { ANNOTATIONS, FIELD_MANAGERS, toYaml } from "../../api/index.js";
import {
  decodeReleaseRecord,
  identityKey,
  identityOf,
  importHelmChart,
  manifestObjects,
  migratedTo,
  newestRecord,
  planMigration,
  recordPayload,
  releaseChartFiles,
  releaseSelector,
  RELEASE_RECORD_TYPE,
  type ChartFiles,
  type HelmImportResult,
  type HelmRelease,
  type MigrationPlan,
  type DryRunAnswer,
} from "../../helm/index.js";
import { isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import { DEFAULT_KUBE_MINOR } from "../../localcluster/index.js";
import type { KubeJson } from "../../runtime/index.js";
import { InputError } from "../inputs/index.js";
import { compileImported } from "./import-render.js";
import { renderDesiredOnCluster } from "./release-render.js";

export interface ReleaseImportOptions {
  readonly kind?: string;
  readonly group?: string;
  readonly version?: string;
  readonly rgdLabels?: Readonly<Record<string, string>>;
  /** The chart the release was installed from (`--chart`): its subcharts, which the record lacks. */
  readonly chartSource?: ChartFiles;
}

export interface LiveRelease {
  readonly release: HelmRelease;
  /** The Secrets (or ConfigMaps, with Helm's configmap driver) holding every revision of the release. */
  readonly records: readonly KubeObject[];
  readonly driver: "Secret" | "ConfigMap";
  /** The newest record, which a successful --apply marks as migrated. */
  readonly newest: KubeObject;
  /** The instance an earlier migration marked the newest record as migrated to (then `uninstalled`). */
  readonly migratedTo?: string;
}

export interface ReleaseMigration extends LiveRelease {
  readonly imported: HelmImportResult;
  /** The imported instance, annotated to adopt the release's objects; or the live one when the release was migrated before. */
  readonly instance: KubeObject;
  /** The instance exists already (a migration run again): its spec, not the record's values, is the truth and is not overwritten. */
  readonly instanceExists: boolean;
  readonly plan: MigrationPlan;
  readonly kubeVersion: string;
}

const recordRef = (o: KubeObject) => ({
  name: o.metadata?.name ?? "",
  labels: o.metadata?.labels ?? {},
  annotations: o.metadata?.annotations ?? {},
});

/** Every record of the release (Secret driver first, Helm's default; then ConfigMap) and the newest, decoded. */
export async function readLiveRelease(client: KubeClient, name: string, namespace: string): Promise<LiveRelease> {
  const labelSelector = releaseSelector(name);
  const secrets = (await client.list("v1", "Secret", { namespace, labelSelector })).items.filter(
    (s) => (s as { type?: string }).type === RELEASE_RECORD_TYPE,
  );
  const driver = secrets.length > 0 ? "Secret" : "ConfigMap";
  const records =
    secrets.length > 0 ? secrets : (await client.list("v1", "ConfigMap", { namespace, labelSelector })).items;
  const newest = newestRecord(
    records.map((r) => ({ ...recordRef(r), object: r })),
    name,
    namespace,
  );
  const release = decodeReleaseRecord(recordPayload(newest.object));
  if (release.name !== name)
    throw new InputError(
      `${driver} ${namespace}/${newest.name} holds release ${JSON.stringify(release.name)}, not ${JSON.stringify(name)}`,
    );
  const target = migratedTo(newest);
  return {
    release,
    records,
    driver,
    newest: { ...newest.object, apiVersion: "v1", kind: driver },
    ...(target === undefined ? {} : { migratedTo: target }),
  };
}

async function serverVersion(client: KubeClient): Promise<string> {
  const version = await client.getPath<{ gitVersion?: string }>("/version");
  return version.gitVersion ?? `v${DEFAULT_KUBE_MINOR}.0`;
}

/** The instance as the migration applies it: the release's name and namespace, adoption opted in. */
export function adoptingInstance(instance: KubeObject, release: HelmRelease): KubeObject {
  const metadata = instance.metadata ?? {};
  return {
    ...instance,
    metadata: {
      ...metadata,
      name: release.name,
      namespace: release.namespace,
      annotations: {
        ...(metadata.annotations ?? {}),
        [ANNOTATIONS.adopt]: "true",
        [ANNOTATIONS.helmAdoptedRelease]: String(release.version),
      },
    },
  };
}

/** The instance of an earlier migration of this release, if any (absent when its kind is not served yet). */
async function existingInstance(client: KubeClient, instance: KubeObject): Promise<KubeObject | undefined> {
  const ref = {
    apiVersion: instance.apiVersion ?? "",
    kind: instance.kind ?? "",
    name: instance.metadata?.name ?? "",
    namespace: instance.metadata?.namespace ?? "",
  };
  const info = await client.resourceFor(ref.apiVersion, ref.kind).catch(() => undefined);
  if (info === undefined) return undefined;
  return client.get(ref).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
}

/**
 * The release's objects as they are now, by identity key (absent ones left out), and the
 * manifest's objects with the namespace dropped from cluster-scoped kinds.
 */
export async function liveReleaseObjects(
  client: KubeClient,
  objects: readonly KubeObject[],
): Promise<{ live: Map<string, KubeObject>; release: KubeObject[] }> {
  const live = new Map<string, KubeObject>();
  const release: KubeObject[] = [];
  for (const object of objects) {
    const id = identityOf(object);
    const info = await client.resourceFor(id.apiVersion, id.kind).catch(() => undefined);
    const namespace = info?.namespaced === false ? undefined : id.namespace;
    const { namespace: _dropped, ...clusterMeta } = object.metadata ?? {};
    release.push(namespace === undefined ? { ...object, metadata: clusterMeta } : object);
    if (info === undefined) continue;
    const found = await client
      .get({
        apiVersion: id.apiVersion,
        kind: id.kind,
        name: id.name,
        ...(namespace === undefined ? {} : { namespace }),
      })
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
    if (found !== undefined) live.set(identityKey(identityOf(found)), found);
  }
  return { live, release };
}

/** Reads the release, imports its chart with its values, and plans the adoption. Writes nothing. */
export async function prepareReleaseMigration(
  client: KubeClient,
  name: string,
  namespace: string,
  options: ReleaseImportOptions,
): Promise<ReleaseMigration> {
  const live = await readLiveRelease(client, name, namespace);
  const { release } = live;
  const kubeVersion = await serverVersion(client);
  const imported = importHelmChart(releaseChartFiles(release, options.chartSource), {
    values: [release.config],
    releaseName: release.name,
    namespace: release.namespace,
    kubeVersion,
    ...(options.kind === undefined ? {} : { kind: options.kind }),
    ...(options.group === undefined ? {} : { group: options.group }),
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  const rgdMeta = (imported.rgd.metadata ?? {}) as { labels?: Record<string, string> };
  const extraLabels = options.rgdLabels ?? {};
  const labelled =
    Object.keys(extraLabels).length === 0
      ? imported
      : {
          ...imported,
          rgd: { ...imported.rgd, metadata: { ...rgdMeta, labels: { ...(rgdMeta.labels ?? {}), ...extraLabels } } },
        };
  const fresh = adoptingInstance(imported.instance, release);
  const existing = await existingInstance(client, fresh);
  const instance = existing ?? fresh;
  // Hooks are not in the manifest: a hook object still live is adopted like the others.
  const releaseObjects = [release.manifest, ...release.hooks.map((h) => h.manifest)].flatMap((text) =>
    manifestObjects(text, release.namespace),
  );
  const current = await liveReleaseObjects(client, releaseObjects);
  // Rendered as the controller will render it: lookups and capabilities from this cluster.
  const graph = await compileImported(labelled, kubeVersion);
  const desired = await renderDesiredOnCluster(client, labelled, graph, instance);
  const dryRuns = await dryRunAdoptions(client, desired, current.live);
  return {
    ...live,
    imported: labelled,
    instance,
    instanceExists: existing !== undefined,
    plan: planMigration(desired, current.release, current.live, dryRuns),
    kubeVersion,
  };
}

/**
 * Each object the migration would adopt, applied as the controller will apply it — server-side,
 * its field manager, forced — but as a dry run: the answer is what would be stored, with the API
 * server's defaults, its dropping of zero values and admission applied. Writes nothing.
 */
async function dryRunAdoptions(
  client: KubeClient,
  desired: readonly KubeJson[],
  live: ReadonlyMap<string, KubeObject>,
): Promise<Map<string, DryRunAnswer>> {
  const answers = new Map<string, DryRunAnswer>();
  for (const object of desired) {
    const key = identityKey(identityOf(object));
    if (!live.has(key)) continue;
    try {
      answers.set(key, {
        stored: await client.apply(object, { fieldManager: FIELD_MANAGERS.applyset, force: true, dryRun: true }),
      });
    } catch (error) {
      answers.set(key, { refused: error instanceof Error ? error.message : String(error) });
    }
  }
  return answers;
}

/** The files `-o DIR` gets (and that --apply applies): CRD, RGD, the adopting instance. */
export function migrationFiles(migration: ReleaseMigration): { readonly name: string; readonly text: string }[] {
  const header = (what: string) =>
    `# ${what} imported from Helm release ${migration.release.namespace}/${migration.release.name} revision ${migration.release.version} (chart ${migration.release.chart.metadata.name}-${migration.release.chart.metadata.version}) by kro import helm --release\n`;
  return [
    { name: "crd.yaml", text: header("CRD") + toYaml(migration.imported.crd) },
    { name: "rgd.yaml", text: header("RGD") + toYaml(migration.imported.rgd) },
    {
      name: "instance.yaml",
      text:
        header("Instance (kro.run/adopt: true takes the release's live objects over in place)") +
        toYaml(migration.instance),
    },
  ];
}
