/**
 * The controller's Prometheus metrics, in one registry per process (no global default
 * registry, so tests and embedders can run several controllers side by side).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export class ControllerMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: "kro_reconcile_total",
    help: "Reconciles by kind and result (success, error, terminal).",
    labelNames: ["kind", "result"],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: "kro_reconcile_duration_seconds",
    help: "Time spent in one reconcile, by kind.",
    labelNames: ["kind"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "kro_workqueue_depth",
    help: "Keys waiting in a work queue.",
    labelNames: ["queue"],
    registers: [this.registry],
  });
  readonly concurrencyLimit = new Gauge({
    name: "kro_instance_concurrency_limit",
    help: "Instances the controller may reconcile at once now (between --workers and --max-workers).",
    registers: [this.registry],
  });
  readonly concurrencySteps = new Counter({
    name: "kro_instance_concurrency_steps_total",
    help: "Windows of the instance concurrency limit, by what the window decided (overloaded, throttled, grew, steady).",
    labelNames: ["reason"],
    registers: [this.registry],
  });
  readonly workDuration = new Histogram({
    name: "kro_workqueue_work_duration_seconds",
    help: "Time a key spends being processed.",
    labelNames: ["queue"],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [this.registry],
  });
  readonly informerReconnects = new Counter({
    name: "kro_informer_reconnects_total",
    help: "Watch reconnects by resource and reason.",
    labelNames: ["resource", "reason"],
    registers: [this.registry],
  });
  readonly poolWait = new Histogram({
    name: "kro_api_pool_wait_seconds",
    help: "Time a request to the Kubernetes API waited for a socket, by pool (request, watch).",
    labelNames: ["pool"],
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly rateLimitWait = new Histogram({
    name: "kro_api_rate_limit_wait_seconds",
    help: "Time a request to the Kubernetes API waited for the client-side rate limiter (waits over 1 ms).",
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [this.registry],
  });
  readonly cachedObjects = new Gauge({
    name: "kro_informer_cached_objects",
    help: "Objects held in the controller's informer caches, by kind (with --shards: only the held shards' instances and children, plus strays).",
    labelNames: ["api_version", "kind"],
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: "kro_api_requests_total",
    help: "Requests to the Kubernetes API by verb and status code.",
    labelNames: ["verb", "code"],
    registers: [this.registry],
  });

  readonly namespaceWork = new Counter({
    name: "kro_namespace_work_seconds_total",
    help: "Worker time spent reconciling the instances of a namespace: what fair sharing between namespaces charges.",
    labelNames: ["namespace"],
    registers: [this.registry],
  });
  readonly namespacePooledWork = new Counter({
    name: "kro_namespace_pooled_evaluation_seconds_total",
    help: "Work (thread CPU time) of the evaluation passes of a namespace that ran in the evaluation pool, past their slice of the main thread.",
    labelNames: ["namespace"],
    registers: [this.registry],
  });
  readonly namespaceQueueWait = new Histogram({
    name: "kro_namespace_queue_wait_seconds",
    help: "Time an instance key of a namespace waited in the queue before a worker took it.",
    labelNames: ["namespace"],
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  constructor(options: { readonly processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: "kro_" });
  }
}
