// observability: logs (pino), Prometheus metrics (prom-client) and the health/metrics server.
// The only importer of pino and prom-client; other layers take the structural Logger type.
export { LOG_LEVELS, createLogger, isLogLevel, type LogLevel, type Logger, type LoggerOptions } from "./logger.js";
export { ControllerMetrics } from "./metrics.js";
export {
  parseBindAddress,
  startProbeServer,
  type HealthReport,
  type ProbeServerOptions,
  type RunningServer,
} from "./probe-server.js";
