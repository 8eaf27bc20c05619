/**
 * Runs the real controller in the test process against the shared test cluster. Each test file
 * gets its own controller that only sees RGDs carrying its own label, because several test
 * files run at once against one API server. Every request the controller sends is recorded so
 * tests can assert on writes (a converged instance must cost none).
 */
import { randomBytes } from "node:crypto";
import type { TestContext } from "node:test";
import { createKubeClient, type KubeClient, type RequestMetric } from "../../src/index.js";
import { startController, type RunningController } from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";
import { testCluster } from "./test-cluster.js";

export interface TestController {
  readonly controller: RunningController;
  readonly client: KubeClient;
  /** Label every RGD of this test must carry: `metadata.labels[label.key] = label.value`. */
  readonly label: { readonly key: string; readonly value: string };
  readonly requests: RequestMetric[];
  writes(since?: number): RequestMetric[];
}

const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export async function startTestController(t: TestContext | { after(fn: () => Promise<void>): void }, options: { requeueIntervalMs?: number } = {}): Promise<TestController> {
  const label = { key: "kro-ts.test/controller", value: randomBytes(4).toString("hex") };
  const requests: RequestMetric[] = [];
  const client = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0, metrics: { onRequest: (m) => { requests.push(m); } } });
  const logger = createLogger({ level: process.env.KRO_TEST_LOG_LEVEL === undefined ? "silent" : (process.env.KRO_TEST_LOG_LEVEL as "info"), name: `controller-${label.value}` });
  const controller = startController({
    client, logger, kroVersion: "test", rgdSelector: `${label.key}=${label.value}`,
    ...(options.requeueIntervalMs === undefined ? {} : { requeueIntervalMs: options.requeueIntervalMs }),
  });
  await controller.ready;
  t.after(async () => {
    await controller.stop();
    client.close();
  });
  return {
    controller, client, label, requests,
    writes: (since = 0) => requests.slice(since).filter((r) => WRITE_VERBS.has(r.verb)),
  };
}
