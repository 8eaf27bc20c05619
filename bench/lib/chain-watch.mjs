// Watch timestamps for the depth chain: the first time the harness sees each level's ConfigMap
// of each instance carrying a given value. Keys: `namespace/instance` → level → value → ms.
export class ChainWatch {
  constructor(client, labelSelector) {
    this.seen = new Map();
    this.informer = client.informer({ apiVersion: "v1", kind: "ConfigMap", labelSelector });
    const record = (o) => {
      const labels = o.metadata?.labels ?? {};
      const level = labels["bench.kro.run/level"];
      const instance = labels["bench.kro.run/instance"];
      if (level === undefined || instance === undefined) return;
      const key = `${o.metadata.namespace}/${instance}`;
      let levels = this.seen.get(key);
      if (levels === undefined) this.seen.set(key, (levels = new Map()));
      const slot = `${level}=${o.data?.value ?? ""}`;
      if (!levels.has(slot)) levels.set(slot, Date.now());
    };
    this.informer.addHandlers({ onAdd: record, onUpdate: (_, o) => record(o) });
  }

  async start() {
    this.informer.start();
    await this.informer.waitForSync({ timeoutMs: 60_000 });
    return this;
  }

  /** When `level` of `key` was first seen with `value` (undefined: not yet). */
  at(key, level, value) {
    return this.seen.get(key)?.get(`${level}=${value}`);
  }

  async stop() {
    await this.informer.stop();
  }
}
