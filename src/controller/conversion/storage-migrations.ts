/**
 * The storage migrations this controller runs: at most one per CRD at a time, in the background
 * of the RGD reconcile that found one needed, stopped with the controller. A failed migration
 * is retried by the next RGD reconcile (the resync or any change), from its saved progress.
 */
import type { KubeClient } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { migrateStorage, type MigrationOutcome, type MigrationTarget } from "./storage-migration.js";

export class StorageMigrations {
  readonly #running = new Map<string, Promise<MigrationOutcome | undefined>>();
  readonly #abort = new AbortController();

  constructor(private readonly client: KubeClient, private readonly logger: Logger, private readonly pace: { readonly qps?: number | undefined; readonly pageSize?: number | undefined } = {}) {}

  /** Starts migrating `target` unless it runs already; `done` is called once it finished. */
  ensure(target: MigrationTarget, done: () => void): void {
    if (this.#running.has(target.crdName) || this.#abort.signal.aborted) return;
    const run = migrateStorage(this.client, target, { logger: this.logger, signal: this.#abort.signal, ...(this.pace.qps === undefined ? {} : { qps: this.pace.qps }), ...(this.pace.pageSize === undefined ? {} : { pageSize: this.pace.pageSize }) })
      .then((outcome) => { if (outcome.state === "done") done(); return outcome; }, (error: unknown) => {
        this.logger.warn({ crd: target.crdName, err: error instanceof Error ? error.message : String(error) }, "storage migration failed; resumed by the next RGD reconcile");
        return undefined;
      })
      .finally(() => { this.#running.delete(target.crdName); });
    this.#running.set(target.crdName, run);
  }

  running(crdName: string): boolean { return this.#running.has(crdName); }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#running.values());
  }
}
