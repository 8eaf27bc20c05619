// Steps every scenario shares: namespaces, installing an RGD and waiting for Active, creating
// and deleting instances in parallel, waiting until a set of instances is Ready or gone.
import { log, pool, waitUntil } from "./progress.mjs";
import { objectKey } from "./tracker.mjs";

export const HARNESS_MANAGER = "kro-bench";
const HARNESS_CONCURRENCY = 32;

export async function ensureNamespaces(client, names) {
  await pool(names, 8, (name) =>
    client.apply(
      { apiVersion: "v1", kind: "Namespace", metadata: { name } },
      { fieldManager: HARNESS_MANAGER, force: true },
    ),
  );
}

export async function installRgd(client, rgd, timeoutMs = 60_000) {
  const started = Date.now();
  await client.apply(rgd, { fieldManager: HARNESS_MANAGER, force: true });
  const ref = { apiVersion: rgd.apiVersion, kind: rgd.kind, name: rgd.metadata.name };
  // What it last showed, so a wait that times out (or a slow one, every 5 s) says why.
  let last = "not read yet";
  await waitUntil(
    `RGD ${rgd.metadata.name} to be Active`,
    async () => {
      const status = (await client.get(ref)).status ?? {};
      last = `state ${status.state ?? "none"}; ${(status.conditions ?? []).map((c) => `${c.type}=${c.status}${c.status === "True" ? "" : ` (${c.reason}: ${c.message})`}`).join("; ") || "no conditions"}`;
      return status.state === "Active" ? true : undefined;
    },
    { timeoutMs, intervalMs: 100, describe: () => last },
  );
  return Date.now() - started;
}

export async function createInstances(client, tracker, objects) {
  await pool(objects, HARNESS_CONCURRENCY, async (o) => {
    await client.create(o);
    tracker.markCreated(o);
  });
}

export async function deleteInstances(client, objects) {
  await pool(objects, HARNESS_CONCURRENCY, (o) =>
    client.delete({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace }),
  );
}

export async function waitReady(tracker, objects, timeoutMs, what = "instances to be Ready") {
  const keys = objects.map(objectKey);
  await waitUntil(what, () => (tracker.readyCount(keys) === keys.length ? true : undefined), {
    timeoutMs,
    intervalMs: 50,
    describe: () => `${tracker.readyCount(keys)}/${keys.length}`,
  });
  return keys;
}

export async function waitGone(tracker, objects, timeoutMs) {
  const keys = objects.map(objectKey);
  const gone = () => keys.filter((k) => tracker.goneAt.has(k)).length;
  await waitUntil("instances to be deleted", () => (gone() === keys.length ? true : undefined), {
    timeoutMs,
    intervalMs: 50,
    describe: () => `${gone()}/${keys.length} gone`,
  });
}

/** Instances named `${prefix}-${i}` spread over `namespaces` round-robin. */
export function spread(count, prefix, namespaces, make) {
  return Array.from({ length: count }, (_, i) => make(`${prefix}-${i}`, namespaces[i % namespaces.length]));
}

/**
 * The null baseline: server-side applies the same objects wave by wave per "instance", with
 * `concurrency` instances in flight (the controller's workers) and the controller's client.
 * A plan is a list of waves; a wave is a list of objects or a function of everything applied so far.
 * @param {(object[] | ((applied: object[]) => object[]))[][]} plans
 */
export async function runBaseline(client, plans, concurrency) {
  const started = Date.now();
  let done = 0;
  const progress = setInterval(() => log(`  null baseline: ${done}/${plans.length}`), 5000);
  try {
    await pool(plans, concurrency, async (waves) => {
      const applied = [];
      for (const wave of waves) {
        const objects = typeof wave === "function" ? wave(applied) : wave;
        applied.push(
          ...(await Promise.all(objects.map((o) => client.apply(o, { fieldManager: HARNESS_MANAGER, force: true })))),
        );
      }
      done++;
    });
  } finally {
    clearInterval(progress);
  }
  return Date.now() - started;
}

/**
 * Removes a repetition's instances without the controller's deletion (which is measured on its
 * own, by --bulk-delete and the steady scenario): the harness deletes each instance, strips the
 * kro finalizer, and deletes the children itself, so the next repetition starts clean.
 */
export async function teardown(client, tracker, objects, childKinds, timeoutMs) {
  await deleteInstances(client, objects);
  await pool(objects, HARNESS_CONCURRENCY, async (o) => {
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    await client.patch(ref, { metadata: { finalizers: null } }).catch((e) => {
      if (e?.status !== 404) throw e;
    });
  });
  await waitGone(tracker, objects, timeoutMs);
  const namespaces = [...new Set(objects.map((o) => o.metadata.namespace))];
  for (const [apiVersion, kind] of childKinds) {
    const children = (
      await Promise.all(
        namespaces.map((namespace) =>
          client.list(apiVersion, kind, { namespace, labelSelector: "app.kubernetes.io/managed-by=kro" }),
        ),
      )
    ).flatMap((l) => l.items);
    await pool(children, HARNESS_CONCURRENCY, (c) =>
      client.delete({ apiVersion, kind, name: c.metadata.name, namespace: c.metadata.namespace }).catch((e) => {
        if (e?.status !== 404) throw e;
      }),
    );
  }
}
