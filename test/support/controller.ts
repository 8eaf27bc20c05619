/**
 * Runs the real controller in the test process against the shared test cluster. Each test file
 * gets its own controller that only sees RGDs carrying its own label, because several test
 * files run at once against one API server. Every request the controller sends is recorded so
 * tests can assert on writes (a converged instance must cost none).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { createKubeClient, type KubeClient, type RequestMetric, type WriteFence } from "../../src/index.js";
import { resolveConnection } from "../../src/kube/index.js";
import {
  RequestSignals,
  startController,
  type ControllerSharding,
  type RunningController,
  type StartControllerOptions,
} from "../../src/controller/index.js";
import type { SchemaResolver } from "../../src/graph/index.js";
import { pluralize } from "../../src/schema/index.js";
import { createLogger, type ControllerMetrics } from "../../src/observability/index.js";
import { eventually } from "./eventually.js";
import { kubectlJson, testCluster } from "./test-cluster.js";

export interface TestController {
  readonly controller: RunningController;
  readonly client: KubeClient;
  /** Label every RGD of this test must carry: `metadata.labels[label.key] = label.value`. */
  readonly label: { readonly key: string; readonly value: string };
  /** Every request, with when it ended (performance.now(); it started durationMs before). */
  readonly requests: (RequestMetric & { readonly endedAt: number })[];
  /** Every completed instance evaluation, as "namespace/name" (from the controller's hook). */
  readonly evaluated: string[];
  writes(since?: number): RequestMetric[];
  stop(): Promise<void>;
}

const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Call `stop()` in the suite's `after` hook. */
export async function startTestController(
  options: {
    requeueIntervalMs?: number;
    rgdSelector?: string;
    resolver?: SchemaResolver;
    /** Several controllers sharing one label (replicas; see controller-shards.test.ts). */
    label?: { readonly key: string; readonly value: string };
    sharding?: ControllerSharding;
    /** The controller's client refuses writes unless this fence is held (leader election's). */
    fence?: WriteFence;
    /** The controller-wide author check (kro's exact model with "Disabled"). */
    authorCheck?: "Enforced" | "Disabled";
    /** Where cluster registrations (kubeconfig Secrets) are read from (docs/design/clusters.md). */
    clusterNamespace?: string;
    /** Storage migration pace (controller-api-versions.test.ts slows it down to stop it half-way). */
    storageMigration?: { qps?: number; pageSize?: number };
    /** Where the conversion webhook listens and is advertised; its client is never fenced (every replica serves it). */
    conversionWebhook?: Omit<NonNullable<StartControllerOptions["conversionWebhook"]>, "client">;
    /** Names this controller in KRO_TEST_LOG_FILE (default: its label's value). */
    logName?: string;
    /** How often delegations are verified again (controller-delegation.test.ts shortens it). */
    delegationRecheckMs?: number;
    /** How long the write gate trusts an access review (controller-tenancy.test.ts shortens it). */
    accessReviewTtlMs?: number;
    /** The controller's metrics registry (read by tests of its gauges). */
    metrics?: ControllerMetrics;
    /** The API server's address for the controller's client (a proxy in front of the test cluster). */
    server?: string;
    /** Instance reconciles may grow from the default 4 to this many while the API server is slow. */
    maxWorkers?: number;
  } = {},
): Promise<TestController> {
  const label = options.label ?? { key: "kro-ts.test/controller", value: randomBytes(4).toString("hex") };
  const requests: (RequestMetric & { readonly endedAt: number })[] = [];
  const evaluated: string[] = [];
  const requestSignals = new RequestSignals();
  const { kubeconfig } = testCluster();
  const client = await createKubeClient({
    ...(options.server === undefined
      ? { kubeconfig }
      : { connection: { ...resolveConnection({ kubeconfig }), server: options.server } }),
    qps: 0,
    ...(options.fence === undefined ? {} : { fence: options.fence }),
    metrics: {
      onRequest: (m) => {
        requests.push({ ...m, endedAt: performance.now() });
        requestSignals.answered(m.status);
      },
      onRateLimitWait: () => {
        requestSignals.heldByLimiter();
      },
    },
  });
  // KRO_TEST_LOG_FILE=/tmp/x.log shows what the controller did (test runners swallow stderr).
  const logFile = process.env.KRO_TEST_LOG_FILE;
  const logger = createLogger({
    level: logFile === undefined ? "silent" : "debug",
    name: `controller-${options.logName ?? label.value}`,
    format: "text",
    ...(logFile === undefined ? {} : { destination: createWriteStream(logFile, { flags: "a" }) }),
  });
  // As the CLI does: the webhook's Secret and reads go through a client the election does not fence.
  const webhookClient =
    options.conversionWebhook === undefined
      ? undefined
      : await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
  const controller = startController({
    client,
    logger,
    kroVersion: "test",
    onInstanceEvaluated: (event) => {
      evaluated.push(`${event.instance.namespace ?? ""}/${event.instance.name}`);
    },
    rgdSelector: options.rgdSelector ?? `${label.key}=${label.value}`,
    ...(options.requeueIntervalMs === undefined ? {} : { requeueIntervalMs: options.requeueIntervalMs }),
    ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
    ...(options.sharding === undefined ? {} : { sharding: options.sharding }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.maxWorkers === undefined ? {} : { maxWorkers: options.maxWorkers, requestSignals }),
    ...(options.authorCheck === undefined ? {} : { authorCheck: options.authorCheck }),
    ...(options.delegationRecheckMs === undefined ? {} : { delegationRecheckMs: options.delegationRecheckMs }),
    ...(options.accessReviewTtlMs === undefined ? {} : { accessReviewTtlMs: options.accessReviewTtlMs }),
    ...(options.clusterNamespace === undefined ? {} : { clusterNamespace: options.clusterNamespace }),
    ...(options.storageMigration === undefined ? {} : { storageMigration: options.storageMigration }),
    ...(options.conversionWebhook === undefined
      ? {}
      : {
          conversionWebhook: {
            ...options.conversionWebhook,
            ...(webhookClient === undefined ? {} : { client: webhookClient }),
          },
        }),
  });
  await controller.ready;
  return {
    controller,
    client,
    label,
    requests,
    evaluated,
    async stop() {
      await controller.stop();
      client.close();
      webhookClient?.close();
    },
    writes: (since = 0) => requests.slice(since).filter((r) => WRITE_VERBS.has(r.verb)),
  };
}

/**
 * A random suffix of letters only: valid in names and in Kinds (tests append a fixed word to Kinds,
 * or end a Kind with it). Its plural is the word and "s", as tests write `${kind.toLowerCase()}s`:
 * a suffix ending like "knife" or "idea" ("…fceafe" → "…fceaves", "…badgea" stays "…badgea" in
 * Kubernetes' pluralisation) made the tenancy and web-view suites ask for a resource that did not
 * exist, in one CI run in a few.
 */
export function letterSuffix(): string {
  for (;;) {
    const suffix = randomBytes(3)
      .toString("hex")
      .replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)] ?? "x");
    if (pluralize(`kind${suffix}`) === `kind${suffix}s`) return suffix;
  }
}

/** The head of an RGD manifest carrying this test controller's label, up to and including `spec:`. */
export function rgdHeader(tc: TestController, name: string): string {
  return `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${name}
  labels: { ${tc.label.key}: "${tc.label.value}" }
spec:`;
}

/**
 * The spec of the smallest useful RGD, after rgdHeader's `spec:`: instances of `kind` write their
 * `spec.value` into one ConfigMap `<name>-cm` and read it back into `status.value`.
 */
export function configMapEchoSpec(kind: string, defaultValue: string): string {
  return `
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      value: string | default="${defaultValue}"
    status:
      value: \${cm.data.value}
  resources:
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-cm" }
        data: { value: "\${schema.spec.value}" }
`;
}

export async function waitRgdActive(name: string): Promise<void> {
  await eventually(
    async () => {
      const rgd = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", name]);
      assert.equal(rgd.status?.state, "Active", JSON.stringify(rgd.status));
    },
    { timeout: 60_000 },
  );
}

/**
 * The annotations an RGD that delegates must carry when this test's kubectl user writes it
 * (docs/design/authorization.md, "Delegation"): its own user and groups, as the API server sees them.
 */
export async function delegationStamp(): Promise<Record<string, string>> {
  const whoami = await kubectlJson<{ status: { userInfo: { username: string; groups?: string[] } } }>([
    "auth",
    "whoami",
    "-o",
    "json",
  ]);
  return {
    "kro.run/delegated-by": whoami.status.userInfo.username,
    "kro.run/delegated-groups": (whoami.status.userInfo.groups ?? []).join(","),
  };
}
