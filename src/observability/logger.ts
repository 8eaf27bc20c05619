/**
 * JSON-lines logging (pino). Loggers are created once at the entry point and passed down; a
 * reconcile gets a child logger carrying kind, namespace, name and reconcileId.
 */
import { pino, type Logger as PinoLogger } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The structural logger every layer accepts, so nothing below observability imports pino. */
export interface Logger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Where JSON lines go; stderr by default so stdout stays free for command output. */
  readonly destination?: NodeJS.WritableStream;
  readonly name?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger & PinoLogger {
  return pino(
    { level: options.level ?? "info", base: { name: options.name ?? "kro" }, timestamp: pino.stdTimeFunctions.isoTime },
    options.destination ?? process.stderr,
  );
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
