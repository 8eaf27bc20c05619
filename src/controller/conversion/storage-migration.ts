/**
 * Storage migration, as kube-storage-version-migrator does it: every object of a kind is
 * rewritten once with a no-op update, which makes the API server encode it at the current storage
 * version; then `status.storedVersions` of the CRD is trimmed to that version, and older versions
 * may leave the RGD. Paced by a token bucket, one page at a time; the list's continue token is
 * kept in an annotation of the CRD after each page, so a controller killed mid-way resumes there.
 *
 * Objects are listed and rewritten at the controller's own version (the RGD's schema version), not
 * at the storage version. The API server encodes a write at the storage version whatever version
 * it was sent at, so either stores the object anew; but every conversion on the way is a round
 * trip to the conversion webhook, and the instance's field managers, the author policy and the
 * controller's watch all work at the controller's version. Sent at the storage version, one rewrite
 * took about 14 conversions (the object to each of those, before and after admission, and back for
 * every watcher) and ~93 ms at the API server; sent at the controller's version, about 6 and ~46 ms.
 */
import { ANNOTATIONS } from "../../api/index.js";
import { isConflict, isGone, isNotFound, TokenBucket, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";

export interface MigrationTarget {
  readonly crdName: string;
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  /** The version the controller works in: objects are listed and rewritten at it. */
  readonly version: string;
}

export interface MigrationOptions {
  /** Objects rewritten per second (default 20). */
  readonly qps?: number;
  /** Rewrites in flight at once (default 8); the pace (`qps`) still bounds how many start per second. */
  readonly inFlight?: number;
  /** Objects per list page (default 100). */
  readonly pageSize?: number;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
}

export type MigrationOutcome =
  { readonly state: "done"; readonly rewritten: number } | { readonly state: "aborted"; readonly rewritten: number };

const DEFAULT_IN_FLIGHT = 8;

interface Progress {
  readonly to: string;
  readonly continue?: string;
}

const crdRef = (name: string) => ({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name });
type CrdObject = KubeObject & {
  spec?: { versions?: { name: string; storage?: boolean }[] };
  status?: { storedVersions?: string[] };
};

export const storageVersionOf = (crd: CrdObject): string | undefined =>
  crd.spec?.versions?.find((v) => v.storage === true)?.name;

/** Whether objects may still be stored at a version other than the storage version. */
export function needsMigration(crd: CrdObject): boolean {
  const storage = storageVersionOf(crd);
  const stored = crd.status?.storedVersions ?? [];
  return storage !== undefined && stored.some((v) => v !== storage);
}

function progressOf(crd: CrdObject, storage: string): Progress {
  const text = crd.metadata?.annotations?.[ANNOTATIONS.storageMigration];
  if (text === undefined) return { to: storage };
  try {
    const parsed = JSON.parse(text) as Partial<Progress>;
    return parsed.to === storage
      ? { to: storage, ...(typeof parsed.continue === "string" ? { continue: parsed.continue } : {}) }
      : { to: storage };
  } catch {
    return { to: storage };
  }
}

async function saveProgress(client: KubeClient, crdName: string, progress: Progress | null): Promise<void> {
  await client.patch(
    crdRef(crdName),
    {
      metadata: {
        annotations: { [ANNOTATIONS.storageMigration]: progress === null ? null : JSON.stringify(progress) },
      },
    },
    { fieldManager: "kro.run/controller" },
  );
}

export async function migrateStorage(
  client: KubeClient,
  target: MigrationTarget,
  options: MigrationOptions,
): Promise<MigrationOutcome> {
  const crd = await client.get<CrdObject>(crdRef(target.crdName));
  const storage = storageVersionOf(crd);
  if (storage === undefined || !needsMigration(crd)) return { state: "done", rewritten: 0 };
  const bucket = new TokenBucket({ qps: options.qps ?? 20, burst: 1 });
  const inFlight = Math.max(1, Math.floor(options.inFlight ?? DEFAULT_IN_FLIGHT));
  let progress = progressOf(crd, storage);
  let rewritten = 0;
  const apiVersion = `${target.group}/${target.version}`;
  options.logger.info(
    { crd: target.crdName, to: storage, resumeFrom: progress.continue === undefined ? "start" : "continue token" },
    "storage migration",
  );
  const aborted = (): boolean => options.signal?.aborted === true;
  for (;;) {
    if (aborted()) return { state: "aborted", rewritten };
    const query = new URLSearchParams({
      limit: String(options.pageSize ?? 100),
      ...(progress.continue === undefined ? {} : { continue: progress.continue }),
    });
    let page: { items?: KubeObject[] | null; metadata?: { continue?: string } };
    try {
      page = await client.getPath(`/apis/${target.group}/${target.version}/${target.plural}?${query.toString()}`);
    } catch (error) {
      // An expired continue token: start over (rewriting an object twice is harmless).
      if (isGone(error) && progress.continue !== undefined) {
        progress = { to: storage };
        continue;
      }
      throw error;
    }
    // Several rewrites in flight: each waits on the API server and a conversion through the
    // webhook (~0.2 s on a loaded machine), so one at a time could never reach the pace.
    const items = [...(page.items ?? [])];
    const rewriter = async (): Promise<void> => {
      for (let item = items.shift(); item !== undefined && !aborted(); item = items.shift()) {
        await bucket.acquire();
        if (aborted()) return;
        try {
          // The no-op update: the object as read, with its resourceVersion; stored at the storage version.
          await client.replace(
            { ...item, apiVersion, kind: target.kind },
            { fieldManager: "kro.run/storage-migration" },
          );
          rewritten++;
        } catch (error) {
          // Written by someone else since the list (so at the storage version already), or gone.
          if (!isConflict(error) && !isNotFound(error)) {
            items.length = 0; // the other rewriters stop after their current object
            throw error;
          }
        }
      }
    };
    // The page is saved only once every rewriter finished it; a failed one fails the page.
    const outcomes = await Promise.allSettled(Array.from({ length: Math.min(inFlight, items.length) }, rewriter));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    if (aborted()) return { state: "aborted", rewritten };
    const next = page.metadata?.continue;
    if (next === undefined || next === "") break;
    progress = { to: storage, continue: next };
    await saveProgress(client, target.crdName, progress);
  }
  // Every object is at the storage version now: only it can be stored.
  await client.patch(
    crdRef(target.crdName),
    { status: { storedVersions: [storage] } },
    { subresource: "status", fieldManager: "kro.run/storage-migration" },
  );
  await saveProgress(client, target.crdName, null);
  options.logger.info(
    { crd: target.crdName, to: storage, rewritten },
    "storage migration done; storedVersions trimmed",
  );
  return { state: "done", rewritten };
}
