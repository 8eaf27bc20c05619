/**
 * The storage migrations this controller runs: at most one per CRD at a time, in the background
 * of the RGD reconcile that found one needed, stopped with the controller. A failed migration
 * (a timeout on a loaded API server, a restart) asks for that RGD's reconcile again after a backoff
 * (5 s doubling to 5 min), which resumes it from its saved progress: waiting for the resync would
 * leave storedVersions untrimmed for hours.
 */
import type { KubeClient } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { migrateStorage, type MigrationOutcome, type MigrationTarget } from "./storage-migration.js";

const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 300_000;

/** What a migration tells its RGD's owner (an Event on the RGD), besides the controller's log. */
export interface MigrationReports {
  started?(): void;
  finished?(rewritten: number): void;
  failed?(message: string, retryInMs: number): void;
}

export class StorageMigrations {
  readonly #running = new Map<string, Promise<MigrationOutcome | undefined>>();
  readonly #failures = new Map<string, number>();
  readonly #retries = new Set<NodeJS.Timeout>();
  readonly #abort = new AbortController();

  constructor(
    private readonly client: KubeClient,
    private readonly logger: Logger,
    private readonly pace: { readonly qps?: number | undefined; readonly pageSize?: number | undefined } = {},
  ) {}

  /** Starts migrating `target` unless it runs already; `requeue` is called once it finished, or after a backoff when it failed. */
  ensure(target: MigrationTarget, requeue: () => void, reports: MigrationReports = {}): void {
    if (this.#running.has(target.crdName) || this.#abort.signal.aborted) return;
    reports.started?.();
    const run = migrateStorage(this.client, target, {
      logger: this.logger,
      signal: this.#abort.signal,
      ...(this.pace.qps === undefined ? {} : { qps: this.pace.qps }),
      ...(this.pace.pageSize === undefined ? {} : { pageSize: this.pace.pageSize }),
    })
      .then(
        (outcome) => {
          this.#failures.delete(target.crdName);
          if (outcome.state === "done") {
            reports.finished?.(outcome.rewritten);
            requeue();
          }
          return outcome;
        },
        (error: unknown) => {
          const failures = (this.#failures.get(target.crdName) ?? 0) + 1;
          this.#failures.set(target.crdName, failures);
          const delayMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1));
          const message = error instanceof Error ? error.message : String(error);
          this.logger.warn(
            { crd: target.crdName, err: message, retryInMs: delayMs },
            "storage migration failed; resumed from its saved progress after a backoff",
          );
          if (!this.#abort.signal.aborted) reports.failed?.(message, delayMs);
          if (!this.#abort.signal.aborted) {
            const timer = setTimeout(() => {
              this.#retries.delete(timer);
              requeue();
            }, delayMs);
            timer.unref();
            this.#retries.add(timer);
          }
          return undefined;
        },
      )
      .finally(() => {
        this.#running.delete(target.crdName);
      });
    this.#running.set(target.crdName, run);
  }

  running(crdName: string): boolean {
    return this.#running.has(crdName);
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    for (const timer of this.#retries) clearTimeout(timer);
    this.#retries.clear();
    await Promise.all(this.#running.values());
  }
}
