// Recovery after a kube-apiserver restart: with N fan-out instances
// converged, kube-apiserver is stopped for --downtime-seconds (long enough for every watch's
// backoff to grow) and started again; the clock starts when its /readyz answers 200 and stops
// when a new instance, created at that moment, is Ready. Twice per repetition:
//  - idle: nothing else in flight;
//  - busy: --busy instances created just before the stop, so reconciles are mid-flight, retrying
//    and queued when the server goes away and come back with it.
// Quiet runs (the same new instance with no restart; and behind the same --busy instances with no
// restart) are measured in each repetition too: the figures that matter are the gaps to them, on
// the same machine in the same run.
import { setTimeout as sleep } from "node:timers/promises";
import { log, waitUntil } from "../lib/progress.mjs";
import { isReady } from "../lib/tracker.mjs";
import { fanoutInstance } from "../fixtures/fanout-rgd.mjs";

export const API_NAMESPACE = "restart-bench";

/** Creates `name` now and resolves with the ms until it is Ready (polled with GETs every 25 ms). */
export async function timeToReady(harness, name, timeoutMs, namespace = API_NAMESPACE) {
  const object = fanoutInstance(name, namespace);
  const started = Date.now();
  await harness.create(object);
  const ref = { apiVersion: object.apiVersion, kind: object.kind, name, namespace };
  await waitUntil(
    `${name} to be Ready`,
    async () => (isReady(await harness.get(ref).catch(() => ({}))) ? true : undefined),
    { timeoutMs, intervalMs: 25 },
  );
  return Date.now() - started;
}

/**
 * @returns {{ quietMs: number[], idleMs: number[], busyQuietMs: number[], busyMs: number[], downtimeMs: number, busyInstances: number }}
 */
export async function measureApiServerRestarts(bench, { repeat, downtimeMs, busyInstances, timeoutMs }) {
  const { harness, cluster } = bench;
  const quietMs = [];
  const idleMs = [];
  const busyMs = [];
  const busyQuietMs = [];
  const createBusy = async (prefix) => {
    const busy = Array.from({ length: busyInstances }, (_, i) => fanoutInstance(`${prefix}-${i}`, API_NAMESPACE));
    await Promise.all(busy.map((o) => harness.create(o)));
    return busy;
  };
  const waitAll = async (objects) => {
    for (const o of objects) {
      const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: API_NAMESPACE };
      await waitUntil(
        `${o.metadata.name} to be Ready`,
        async () => (isReady(await harness.get(ref).catch(() => ({}))) ? true : undefined),
        { timeoutMs, intervalMs: 100 },
      );
    }
  };
  for (let rep = 0; rep < repeat; rep++) {
    quietMs.push(await timeToReady(harness, `quiet-${rep}`, timeoutMs));
    log(`restart: quiet: new instance Ready in ${quietMs.at(-1)} ms (${rep + 1}/${repeat})`);
    await sleep(1000);

    log(`restart: idle: kube-apiserver down for ${downtimeMs} ms (${rep + 1}/${repeat})`);
    await cluster.restartComponent("kube-apiserver", { downtimeMs });
    // restartComponent returns once /readyz answers 200: the clock starts there.
    idleMs.push(await timeToReady(harness, `after-idle-restart-${rep}`, timeoutMs));
    log(`restart: idle: new instance Ready ${idleMs.at(-1)} ms after /readyz`);
    await sleep(3000);

    const quietBusy = await createBusy(`quiet-busy-${rep}`);
    busyQuietMs.push(await timeToReady(harness, `quiet-behind-busy-${rep}`, timeoutMs));
    log(`restart: quiet: new instance behind ${busyInstances} busy ones Ready in ${busyQuietMs.at(-1)} ms`);
    await waitAll(quietBusy);
    await sleep(1000);

    const busy = await createBusy(`busy-${rep}`);
    log(
      `restart: busy: ${busyInstances} instances just created; kube-apiserver down for ${downtimeMs} ms (${rep + 1}/${repeat})`,
    );
    await cluster.restartComponent("kube-apiserver", { downtimeMs });
    busyMs.push(await timeToReady(harness, `after-busy-restart-${rep}`, timeoutMs));
    log(`restart: busy: new instance Ready ${busyMs.at(-1)} ms after /readyz`);
    await waitAll(busy);
    await sleep(3000);
  }
  return { quietMs, idleMs, busyQuietMs, busyMs, downtimeMs, busyInstances };
}
