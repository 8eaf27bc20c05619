/**
 * The policy watch catches up before an instance write is judged. The
 * instance's and the policies' watch streams race: an instance created right after a policy was
 * deleted can reach the controller before the delete event does, and was then reconciled
 * unchecked. So the first reconcile of every new instance write waits here until the policy
 * informers provably reflect the cluster as of a moment *after* that write was seen: one list of
 * the controller's policy objects (a consistent read, served at the cluster's current revision)
 * whose objects — names, uids, resourceVersions — the informer's store then shows too; the events
 * that lead there (a delete, an edit) have reached the handlers by then. A write seen before
 * that list was sent is covered by it, so a burst of new instances costs one list per kind
 * (rounds are shared: who arrives during a round waits for the next one), and a write whose
 * revision is not newer than a completed round's list needs no round at all (when revisions are
 * decimal integers: context/breach-windows.ts). Nothing is listed in the steady state: an
 * unchanged instance's resync is judged by nothing.
 */
import { LABELS } from "../../api/index.js";
import type { Informer, KubeList, ListOptions } from "../../kube/index.js";
import { revisionOf, type PolicySync } from "../context/index.js";

/** How long the informer may take to show what the list showed before the round fails (the reconcile is retried). */
const CATCH_UP_MS = 10_000;
const POLL_MS = 10;

export interface PolicyLister {
  list(apiVersion: string, kind: string, options: ListOptions): Promise<KubeList>;
}

export class PolicyBarrier implements PolicySync {
  private informers: readonly Informer[] = [];
  private started = 0;
  private completed = 0;
  private running: Promise<void> | undefined;
  /** The revision every policy informer was shown to reflect by the last completed round. */
  private covered: bigint | undefined;
  /** Lists made (for tests and the bench: one per round and kind). */
  rounds = 0;

  constructor(private readonly client: PolicyLister) {}

  /** The policy informers (policy-guard.ts) this barrier waits on. */
  attach(informers: readonly Informer[]): void {
    this.informers = informers;
  }

  ticket(): number {
    return this.started;
  }

  async caughtUp(ticket: number, resourceVersion?: string): Promise<void> {
    const revision = revisionOf(resourceVersion);
    while (this.completed <= ticket) {
      if (revision !== undefined && this.covered !== undefined && revision <= this.covered) return;
      this.running ??= this.round().finally(() => {
        this.running = undefined;
      });
      await this.running;
    }
  }

  private async round(): Promise<void> {
    const seq = ++this.started;
    this.rounds++;
    const revisions = await Promise.all(this.informers.map((informer) => this.catchUp(informer)));
    this.completed = Math.max(this.completed, seq);
    let lowest: bigint | undefined;
    for (const r of revisions) {
      if (r === undefined) return;
      if (lowest === undefined || r < lowest) lowest = r;
    }
    if (lowest !== undefined && (this.covered === undefined || lowest > this.covered)) this.covered = lowest;
  }

  /** Resolves with the list's revision once the informer shows what it showed. */
  private async catchUp(informer: Informer): Promise<bigint | undefined> {
    await informer.waitForSync({ timeoutMs: CATCH_UP_MS });
    const { apiVersion, kind } = informer.options;
    const list = await this.client.list(apiVersion, kind, {
      labelSelector: informer.options.labelSelector ?? `${LABELS.managedBy}=kro`,
    });
    const listed = new Map(
      list.items.map((o) => [o.metadata?.name ?? "", `${o.metadata?.uid ?? ""}/${o.metadata?.resourceVersion ?? ""}`]),
    );
    const listRevision = revisionOf(list.metadata.resourceVersion);
    const shows = () => {
      const seen = revisionOf(informer.lastResourceVersion);
      // Further along than the list (a later event or bookmark): everything up to it was handled.
      if (seen !== undefined && listRevision !== undefined && seen >= listRevision) return true;
      const stored = informer.store.list();
      return (
        stored.length === listed.size &&
        stored.every(
          (o) => listed.get(o.metadata?.name ?? "") === `${o.metadata?.uid ?? ""}/${o.metadata?.resourceVersion ?? ""}`,
        )
      );
    };
    const deadline = Date.now() + CATCH_UP_MS;
    while (!shows()) {
      if (informer.stopped) throw new Error(`the ${kind} watch stopped`);
      if (Date.now() > deadline)
        throw new Error(
          `the ${kind} watch did not catch up with the cluster within ${CATCH_UP_MS} ms; instance writes wait`,
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return listRevision;
  }
}
