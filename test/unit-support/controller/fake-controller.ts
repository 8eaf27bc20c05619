/**
 * A ControllerContext wired as startController wires it (controller.ts), over fake clusters
 * (test/unit-support/fake-api/), with nothing running on its own: no work loops, no leader
 * election, no policy watches. A test calls reconcileRgd / reconcileInstance itself and reads the
 * queues to see what the pass asked for next. Member clusters are fake clusters of their own,
 * registered by name (`clusters`), in place of the kubeconfig-Secret registry.
 *
 * Differences from startController, on purpose:
 *  - the author check is "Disabled" by default and the policy barrier is always caught up: the
 *    admission policy is the API server's to enforce, which the fake does not model;
 *  - charts render inline (no worker pool), and there is no crash-loop guard;
 *  - the work queues run on a manual clock (test/support/manual-clock.ts): no real timers;
 *  - time (`now`) is the fake clock's, so stamps are deterministic.
 */
import { createKroCelEnvironment } from "../../../src/expr/index.js";
import { compileRgd } from "../../../src/graph/index.js";
import {
  InformerManager,
  stripManagedFields,
  type InformerLease,
  type KubeClient,
  type KubeObject,
} from "../../../src/kube/index.js";
import { createLogger } from "../../../src/observability/index.js";
import {
  ApplyMemo,
  AuthorPolicyState,
  AccessReviews,
  DelegationVerdicts,
  OwnWrites,
  ServedGraphs,
  type ControllerContext,
  type ControllerOptions,
  type PolicySync,
  type ServedGraph,
} from "../../../src/controller/context/index.js";
import type { ClusterClient, ClusterConnections } from "../../../src/controller/clusters/index.js";
import { ConversionWebhook, StorageMigrations } from "../../../src/controller/conversion/index.js";
import { HelmClusterCache } from "../../../src/controller/helm/index.js";
import { WorkQueue } from "../../../src/controller/loop/index.js";
import { ChildWatches, RemoteWatches } from "../../../src/controller/watches/index.js";
import { childOwnerRouter, DEFAULT_EVALUATION_TIMEOUT_MS } from "../../../src/controller/instance/index.js";
import { DEFAULT_MAX_GRAPH_REVISIONS, reconcileRgd, withClusterKinds } from "../../../src/controller/rgd/index.js";
import { whoAmI } from "../../../src/controller/author-policy/index.js";
import { Actor, clientFor, FakeCluster } from "../fake-api/index.js";
import { ManualClock } from "../../support/manual-clock.js";
import { instanceMemoryOver } from "../../../src/controller/controller-context-factory.js";
import { graphRevisionCustomResourceDefinition, rgdCustomResourceDefinition } from "../../../src/api/index.js";

/** Member clusters by name, each a fake cluster with its own client. */
class FakeMembers implements ClusterConnections {
  private readonly listeners: ((cluster: string) => void)[] = [];
  readonly clients = new Map<string, KubeClient>();

  add(cluster: FakeCluster): void {
    this.clients.set(cluster.name, clientFor(cluster));
    for (const listener of this.listeners) listener(cluster.name);
  }

  clientFor(cluster: string): Promise<ClusterClient> {
    const client = this.clients.get(cluster);
    return Promise.resolve(client === undefined ? { error: `cluster "${cluster}" is not registered` } : { client });
  }

  onChange(listener: (cluster: string) => void): void {
    this.listeners.push(listener);
  }

  registered(cluster: string): boolean {
    return this.clients.has(cluster);
  }
}

/** Immutable once built and the costliest part of a context: one for every fake controller of a test process. */
let sharedEnv: ReturnType<typeof createKroCelEnvironment> | undefined;

/** No policy watch runs here, so there is nothing to catch up with. */
const ALWAYS_CAUGHT_UP: PolicySync = { ticket: () => 0, caughtUp: () => Promise.resolve() };

export interface FakeController {
  readonly ctx: ControllerContext;
  readonly cluster: FakeCluster;
  /** Drains a queue without running anything: the keys a pass asked to see again. */
  queued(queue: "instance" | "rgd"): Promise<string[]>;
  stop(): Promise<void>;
}

export function startFakeController(
  options: { cluster?: FakeCluster; members?: readonly FakeCluster[]; controller?: ControllerOptions } = {},
): FakeController {
  const cluster = options.cluster ?? new FakeCluster();
  // As startController does before anything else: kro's own CRDs (the fake serves them at once).
  const installer = new Actor(cluster, "kro.run/controller");
  for (const crd of [rgdCustomResourceDefinition(), graphRevisionCustomResourceDefinition()]) {
    if (
      installer.read({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        name: crd.metadata.name,
      }) === undefined
    )
      installer.create(crd as unknown as KubeObject);
  }
  const client = clientFor(cluster);
  const logger = createLogger({ level: "silent", name: "fake-controller", format: "text" });
  const informers = new InformerManager(client, { transform: stripManagedFields });
  const served = new ServedGraphs();
  // Queues only collect keys here: no loop takes work from them, and their delays wait on a clock
  // that never moves unless a test moves it.
  const queueClock = new ManualClock();
  const rgdQueue = new WorkQueue({ clock: queueClock });
  const instanceQueue = new WorkQueue({ clock: queueClock });
  const env = (sharedEnv ??= createKroCelEnvironment({ enableRuntime: true }));
  const instanceLeases = new Map<string, InformerLease<KubeObject>>();
  const ownWrites = new OwnWrites();
  const ownerOf = childOwnerRouter(served, (rgdName) => instanceLeases.get(rgdName)?.informer.store);
  const clusters = new FakeMembers();
  for (const member of options.members ?? []) clusters.add(member);
  const enqueue = (key: string): void => {
    instanceQueue.add(key);
  };
  const watches = new ChildWatches(
    client,
    informers,
    ownerOf,
    enqueue,
    new RemoteWatches(clusters, ownerOf, enqueue),
    undefined,
    env,
    ownWrites,
  );
  const authorPolicies = new AuthorPolicyState();
  const instanceMemory = instanceMemoryOver({ watches, authorPolicies, evaluationGuard: undefined });
  const o = options.controller ?? {};
  const ctx: ControllerContext = {
    conversion: new ConversionWebhook({ logger, client }),
    migrations: new StorageMigrations(client, logger),
    client,
    eventClient: client,
    informers,
    logger,
    kroVersion: "test",
    served,
    watches,
    clusters,
    rgdQueue,
    instanceQueue,
    applyMemo: new ApplyMemo(),
    ownWrites,
    helmCluster: new HelmClusterCache(client),
    instanceLeases,
    instanceMemory,
    authorPolicies,
    policySync: ALWAYS_CAUGHT_UP,
    delegations: new DelegationVerdicts(o.delegationRecheckMs ?? 300_000),
    accessReviews: new AccessReviews(client, o.accessReviewTtlMs ?? 30_000, () => Date.parse(cluster.clock.now())),
    mayWriteCluster: () => true,
    options: {
      workers: o.workers ?? 1,
      requeueIntervalMs: o.requeueIntervalMs ?? 3000,
      allowCrdDeletion: o.allowCrdDeletion ?? false,
      addStatusToUserCrds: o.addStatusToUserCrds ?? true,
      maxCollectionSize: o.maxCollectionSize ?? 1000,
      maxGraphRevisions: o.maxGraphRevisions ?? DEFAULT_MAX_GRAPH_REVISIONS,
      evaluationTimeoutMs: o.evaluationTimeoutMs ?? DEFAULT_EVALUATION_TIMEOUT_MS,
      authorCheck: o.authorCheck ?? "Disabled",
      delegationRecheckMs: o.delegationRecheckMs ?? 300_000,
      accessReviewTtlMs: o.accessReviewTtlMs ?? 30_000,
    },
    compile: async (rgd) => {
      const resolver = await withClusterKinds(client, rgd, undefined);
      return compileRgd(rgd, { env, unknownKinds: "error", ...(resolver === undefined ? {} : { resolver }) });
    },
    now: () => cluster.clock.now(),
    controllerUser: () => whoAmI(client),
  };
  const drain = async (queue: WorkQueue): Promise<string[]> => {
    const keys: string[] = [];
    while (queue.length > 0) {
      const key = await queue.get();
      if (key === undefined) break;
      keys.push(key);
      queue.done(key);
    }
    return keys;
  };
  return {
    ctx,
    cluster,
    queued: (queue) => drain(queue === "instance" ? instanceQueue : rgdQueue),
    async stop() {
      await ctx.watches.stop();
      await Promise.all([...instanceLeases.values()].map((l) => l.release()));
      informers.stopAll();
      client.close();
      for (const member of clusters.clients.values()) member.close();
      rgdQueue.shutDown();
      instanceQueue.shutDown();
      await ctx.conversion.close(0);
    },
  };
}

/**
 * An RGD as a user applies it, reconciled once: the graph it serves (the test fails if none).
 * Its instances' informer is started and synced, as startServing leaves it.
 */
export async function serveRgd(fc: FakeController, rgd: KubeObject): Promise<ServedGraph> {
  new Actor(fc.cluster).create(rgd);
  const name = rgd.metadata?.name ?? "";
  await reconcileRgd(fc.ctx, name);
  const served = fc.ctx.served.get(name);
  if (served === undefined)
    throw new Error(
      `RGD ${name} is not served: ${JSON.stringify(new Actor(fc.cluster).read({ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name })?.status)}`,
    );
  await fc.queued("instance");
  return served;
}
