// Watch timestamps: an informer on the instance kind records when each instance first reports
// Ready (status.state ACTIVE and condition Ready=True) and when it is gone; the harness records
// when it created each one. Keys are `namespace/name`.
const key = (o) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

export function isReady(o, check = () => true) {
  const ready = (o.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
  return o.status?.state === "ACTIVE" && ready && check(o);
}

export class InstanceTracker {
  /** @param {(o: object) => boolean} [readyCheck] an extra condition (e.g. a status field reflects the new spec) */
  constructor(client, apiVersion, kind, readyCheck) {
    this.createdAt = new Map();
    this.readyAt = new Map();
    this.goneAt = new Map();
    this.readyCheck = readyCheck ?? (() => true);
    this.informer = client.informer({ apiVersion, kind });
    const seen = (o) => {
      if (!this.readyAt.has(key(o)) && isReady(o, this.readyCheck)) this.readyAt.set(key(o), Date.now());
    };
    this.informer.addHandlers({
      onAdd: seen,
      onUpdate: (_, o) => seen(o),
      onDelete: (o) => {
        this.goneAt.set(key(o), Date.now());
      },
    });
  }

  async start() {
    this.informer.start();
    await this.informer.waitForSync({ timeoutMs: 60_000 });
    return this;
  }

  /** Forget readiness (before an update storm) and set what counts as Ready from now on. */
  resetReady(readyCheck) {
    this.readyAt.clear();
    this.readyCheck = readyCheck ?? (() => true);
    for (const o of this.informer.store.list()) if (isReady(o, this.readyCheck)) this.readyAt.set(key(o), Date.now());
  }

  markCreated(o, at = Date.now()) {
    this.createdAt.set(key(o), at);
  }

  readyCount(keys) {
    return keys.filter((k) => this.readyAt.has(k)).length;
  }

  /** Milliseconds from creation to Ready for each key that has both. */
  timeToReady(keys) {
    return keys
      .filter((k) => this.readyAt.has(k) && this.createdAt.has(k))
      .map((k) => this.readyAt.get(k) - this.createdAt.get(k));
  }

  async stop() {
    await this.informer.stop();
  }
}

export { key as objectKey };
