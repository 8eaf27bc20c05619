/**
 * Reads one watch response: newline-delimited JSON events, each handed to a callback as it
 * arrives. Ends with a reason rather than throwing, so the informer decides what comes next;
 * a silent stream (no bytes, not even bookmarks, for inactivityMs) is cut and reported.
 */
import type { IncomingMessage } from "node:http";
import type { KubeObject } from "./types.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject;
}

export type WatchEnd =
  | { readonly reason: "closed" }
  | { readonly reason: "stopped" }
  | { readonly reason: "inactive" }
  | { readonly reason: "malformed"; readonly line: string; readonly error: Error }
  | { readonly reason: "error"; readonly error: Error };

const EVENT_TYPES = new Set<string>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

export function parseWatchLine(line: string): WatchEvent {
  const parsed = JSON.parse(line) as { type?: unknown; object?: unknown };
  if (typeof parsed.type !== "string" || !EVENT_TYPES.has(parsed.type))
    throw new Error(`unknown watch event type ${JSON.stringify(parsed.type)}`);
  if (typeof parsed.object !== "object" || parsed.object === null) throw new Error("watch event without an object");
  return { type: parsed.type as WatchEventType, object: parsed.object as KubeObject };
}

/**
 * Feeds events to onEvent until the stream ends; onEvent returns "stop" to end it early.
 * Resolves (never rejects) with why it ended.
 */
export function consumeWatch(
  res: IncomingMessage,
  options: { readonly inactivityMs: number; readonly signal?: AbortSignal },
  onEvent: (event: WatchEvent) => "continue" | "stop",
): Promise<WatchEnd> {
  return new Promise((resolve) => {
    let buffered = "";
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const isDone = (): boolean => done;
    const finish = (end: WatchEnd): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      res.destroy();
      resolve(end);
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        finish({ reason: "inactive" });
      }, options.inactivityMs);
    };
    const onAbort = (): void => {
      finish({ reason: "stopped" });
    };
    if (options.signal?.aborted === true) {
      onAbort();
      return;
    }
    options.signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (done) return;
      arm();
      buffered += chunk;
      let newline: number;
      while (!isDone() && (newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line === "") continue;
        let event: WatchEvent;
        try {
          event = parseWatchLine(line);
        } catch (error) {
          finish({ reason: "malformed", line: line.slice(0, 200), error: error as Error });
          return;
        }
        if (onEvent(event) === "stop") finish({ reason: "stopped" });
      }
    });
    res.on("end", () => {
      if (!done && buffered.trim() !== "") {
        // A last event without its newline is still a whole event if it parses.
        try {
          const event = parseWatchLine(buffered.trim());
          buffered = "";
          if (onEvent(event) === "stop") {
            finish({ reason: "stopped" });
            return;
          }
        } catch (error) {
          finish({ reason: "malformed", line: buffered.slice(0, 200), error: error as Error });
          return;
        }
      }
      finish({ reason: "closed" });
    });
    res.on("error", (error) => {
      finish({ reason: "error", error });
    });
    res.on("aborted", () => {
      finish({ reason: "error", error: new Error("watch connection aborted") });
    });
    res.on("close", () => {
      if (!res.complete)
        finish({ reason: "error", error: new Error("watch connection closed before the response ended") });
    });
  });
}
