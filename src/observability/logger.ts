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
  /** "json" (default): one JSON object per line; "text": `time LEVEL message key=value…` for humans. */
  readonly format?: "json" | "text";
}

export function createLogger(options: LoggerOptions = {}): Logger & PinoLogger {
  return pino(
    { level: options.level ?? "info", base: { name: options.name ?? "kro" }, timestamp: pino.stdTimeFunctions.isoTime },
    options.format === "text"
      ? textDestination(options.destination ?? process.stderr)
      : (options.destination ?? process.stderr),
  );
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/** Re-renders pino's JSON lines as plain text (pino-pretty would add a dependency for this). */
function textDestination(out: NodeJS.WritableStream): { write(line: string): void } {
  return {
    write(line: string) {
      const {
        time,
        level,
        msg,
        name: _name,
        pid: _pid,
        hostname: _host,
        ...rest
      } = JSON.parse(line) as Record<string, unknown>;
      const fields = Object.entries(rest)
        .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(" ");
      out.write(
        `${String(time)} ${LEVEL_NAMES[Number(level)] ?? String(level)} ${String(msg)}${fields === "" ? "" : ` ${fields}`}\n`,
      );
    },
  };
}
