/**
 * propagateWhen on a forEach collection, on the real control plane (docs/design/rollouts.md): 20
 * ConfigMaps, one per region, whose readiness the test controls (an annotation it sets once it
 * has seen the item's current version, as a Deployment's pods would become available), under
 * `linearlyUpdated(region, regions, 2)` and "every updated item is ready".
 *  - A change of the version reaches the items in waves of 2 in collection order: every change
 *    of every ConfigMap, as the API server's watch reports them in order, is replayed and at no
 *    point are more than 2 items at the new version and not ready; the instance says what it
 *    waits for meanwhile, and is Ready only once all 20 run the new version. No item is deleted
 *    or recreated (same uids).
 *  - The same collection without propagateWhen takes the change at once: the controller writes
 *    all 20 though none of them is ever ready.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKubeClient, type InformerLease, type KubeClient, type KubeObject } from "../../src/kube/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const COUNT = 20;
const BATCH = 2;
const suffix = letterSuffix();
const namespace = `propagate-${suffix}`;
const regions = Array.from({ length: COUNT }, (_, i) => `r${String(i).padStart(2, "0")}`);
const READY = "ready-version";

type ConfigMap = KubeObject & { data?: { version?: string; region?: string } };
type Condition = { type: string; status: string; reason?: string; message?: string };

let tc: TestController;
let client: KubeClient;
let configMaps: InformerLease<KubeObject>;

const kindOf = (prefix: string) => `${prefix}${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}`;

function rgdYaml(name: string, kind: string, prefix: string, gated: boolean): string {
  return `${rgdHeader(tc, name)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      regions: "[]string"
      version: string
  resources:
    - id: regions
      forEach:
        - region: \${schema.spec.regions}
${
  gated
    ? `      propagateWhen:
        - \${linearlyUpdated(region, regions, ${BATCH})}
        - \${regions.all(r, !r.updated() || r.ready())}
`
    : ""
}      readyWhen:
        - \${has(each.metadata.annotations) && "${READY}" in each.metadata.annotations && each.metadata.annotations["${READY}"] == each.data.version}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "${prefix}-\${region}" }
        data: { region: "\${region}", version: "\${schema.spec.version}" }
`;
}

const instanceYaml = (kind: string, name: string, version: string): string =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: { version: ${version}, regions: [${regions.join(", ")}] }\n`;

/** Every change of every ConfigMap of the namespace, in the order the API server reports them. */
const seen: ConfigMap[] = [];
const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";
const isReady = (cm: ConfigMap): boolean =>
  cm.data?.version !== undefined && cm.metadata?.annotations?.[READY] === cm.data.version;

/** Plays the part of whatever makes a region ready: marks gated items ready once seen at their version. */
let approving = true;
async function approveLoop(prefix: string): Promise<void> {
  while (approving) {
    const items = (configMaps.informer.store.list() as ConfigMap[]).filter((cm) => nameOf(cm).startsWith(`${prefix}-`));
    for (const cm of items) {
      if (isReady(cm) || cm.data?.version === undefined) continue;
      await client
        .patch(
          { apiVersion: "v1", kind: "ConfigMap", namespace, name: nameOf(cm) },
          { metadata: { annotations: { [READY]: cm.data.version } } },
        )
        .catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Replays the ConfigMap changes of `prefix` since `from` (each item as it stood then, then every
 * change in the API server's order) and checks after each that at most BATCH items run `version`
 * without being ready. Returns the items in the order they first reached `version`.
 */
function replay(prefix: string, from: number, version: string): string[] {
  const state = new Map<string, ConfigMap>();
  for (const cm of seen.slice(0, from)) if (nameOf(cm).startsWith(`${prefix}-`)) state.set(nameOf(cm), cm);
  const reached: string[] = [];
  for (const cm of seen.slice(from)) {
    const name = nameOf(cm);
    if (!name.startsWith(`${prefix}-`)) continue;
    if (cm.data?.version === version && state.get(name)?.data?.version !== version) reached.push(name);
    state.set(name, cm);
    const inFlight = [...state.values()].filter((c) => c.data?.version === version && !isReady(c)).length;
    assert.ok(inFlight <= BATCH, `${inFlight} items at ${version} and not ready after a change of ${name}`);
  }
  return reached;
}

/** `names` cut into consecutive waves of BATCH, each sorted (a wave's items are written at once, in any order). */
const waves = (names: readonly string[]): string[][] =>
  Array.from({ length: Math.ceil(names.length / BATCH) }, (_, k) => names.slice(k * BATCH, (k + 1) * BATCH).sort());

const conditionOf = async (kind: string, name: string, type: string): Promise<Condition | undefined> =>
  (
    await kubectlJson<{ status?: { conditions?: Condition[] } }>(["get", kind.toLowerCase(), name, "-n", namespace])
  ).status?.conditions?.find((c) => c.type === type);

const items = (prefix: string): ConfigMap[] =>
  (configMaps.informer.store.list() as ConfigMap[]).filter((cm) => nameOf(cm).startsWith(`${prefix}-`));

describe("a forEach collection under propagateWhen updates in waves", { timeout: 600_000 }, () => {
  const gatedKind = kindOf("Gated");
  const plainKind = kindOf("Plain");
  let approver: Promise<void> | undefined;

  before(async () => {
    client = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
    await kubectl(["create", "namespace", namespace]);
    configMaps = client.informers.acquire({ apiVersion: "v1", kind: "ConfigMap", namespace });
    configMaps.informer.addHandlers({
      onAdd: (o) => seen.push(o),
      onUpdate: (_old, next) => {
        seen.push(next);
      },
    });
    await configMaps.informer.waitForSync({ timeoutMs: 30_000 });
    tc = await startTestController();
    await kubectl(["apply", "-f", "-"], rgdYaml(`gated-${suffix}`, gatedKind, "g", true));
    await kubectl(["apply", "-f", "-"], rgdYaml(`plain-${suffix}`, plainKind, "p", false));
    await waitRgdActive(`gated-${suffix}`);
    await waitRgdActive(`plain-${suffix}`);
    approver = approveLoop("g");
  });
  after(async () => {
    approving = false;
    await approver;
    await configMaps.release();
    await tc.stop();
    for (const rgd of [`gated-${suffix}`, `plain-${suffix}`])
      await kubectl(["delete", "rgd", rgd, "--wait=false", "--ignore-not-found"]).catch(() => "");
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]).catch(() => "");
    client.close();
  });

  it("creates the 20 items in waves of 2 too, and is Ready once all are", async () => {
    const from = seen.length;
    await kubectl(["apply", "-f", "-"], instanceYaml(gatedKind, "world", "v1"));
    await eventually(
      async () => {
        assert.equal(items("g").filter(isReady).length, COUNT);
        assert.equal((await conditionOf(gatedKind, "world", "Ready"))?.status, "True");
      },
      { timeout: 180_000, interval: 500 },
    );
    assert.deepEqual(
      waves(replay("g", from, "v1")),
      waves(regions.map((r) => `g-${r}`)),
      "created in waves of 2, in collection order",
    );
  });

  it("a change reaches the items in waves of 2, each wave once the previous one is ready, never deleting one", async () => {
    const uids = new Map(items("g").map((cm) => [nameOf(cm), cm.metadata?.uid]));
    const from = seen.length;
    const writesFrom = tc.requests.length;
    await kubectl(["apply", "-f", "-"], instanceYaml(gatedKind, "world", "v2"));
    const waiting = await eventually(
      async () => {
        const ready = await conditionOf(gatedKind, "world", "ResourcesReady");
        assert.notEqual(ready?.status, "True");
        assert.match(ready?.message ?? "", /collection "regions": \d+ of 20 updated/);
        return ready?.message ?? "";
      },
      { timeout: 60_000, interval: 100 },
    );
    await eventually(
      async () => {
        const done = items("g").filter((cm) => cm.data?.version === "v2" && isReady(cm)).length;
        assert.equal(done, COUNT, `${done} of ${COUNT} at v2 and ready`);
        const ready = await conditionOf(gatedKind, "world", "Ready");
        assert.equal(ready?.status, "True", ready?.message);
      },
      { timeout: 180_000, interval: 500 },
    );
    const reached = replay("g", from, "v2");
    assert.deepEqual(
      waves(reached),
      waves(regions.map((r) => `g-${r}`)),
      "each item once, in waves of 2 in collection order",
    );
    assert.deepEqual(new Map(items("g").map((cm) => [nameOf(cm), cm.metadata?.uid])), uids, "no item recreated");
    const writes = tc.writes(writesFrom).filter((w) => w.path.includes("/configmaps/g-"));
    assert.ok(
      writes.every((w) => w.verb === "PATCH"),
      "items are only patched (applied), never deleted or created",
    );
    assert.equal(new Set(writes.map((w) => w.path.split("?")[0])).size, COUNT, "every item written");
    assert.ok(waiting.length > 0);
  });

  it("the same collection without propagateWhen takes a change at once, ready or not", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml(plainKind, "world", "v1"));
    await eventually(
      () => {
        assert.equal(items("p").length, COUNT);
      },
      { timeout: 60_000, interval: 200 },
    );
    const from = seen.length;
    const writesFrom = tc.requests.length;
    await kubectl(["apply", "-f", "-"], instanceYaml(plainKind, "world", "v2"));
    await eventually(
      () => {
        const done = items("p").filter((cm) => cm.data?.version === "v2").length;
        assert.equal(done, COUNT, `${done} of ${COUNT} at v2`);
      },
      { timeout: 60_000, interval: 200 },
    );
    assert.equal(items("p").filter(isReady).length, 0, "none was ever ready");
    assert.equal(
      seen.slice(from).filter((cm) => nameOf(cm).startsWith("p-") && isReady(cm)).length,
      0,
      "nothing waited on readiness",
    );
    const written = new Set(
      tc
        .writes(writesFrom)
        .filter((w) => w.path.includes("/configmaps/p-"))
        .map((w) => w.path.split("?")[0]),
    );
    assert.equal(written.size, COUNT);
    assert.ok(
      items("p").every((cm) => cm.metadata?.annotations?.["internal.kro.run/desired-hash"] === undefined),
      "no propagation record on items of a collection without propagateWhen",
    );
  });
});
