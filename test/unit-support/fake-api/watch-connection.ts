/**
 * One open watch of the fake API: the response body the informer reads (a stream standing in
 * for node's IncomingMessage, newline-delimited JSON events) and the filter of what it sees.
 * While the cluster holds watches back (a lagging cache, see FakeCluster.holdWatches) events
 * queue here and go out in order on release.
 */
import { PassThrough } from "node:stream";
import type { IncomingMessage } from "node:http";
import type { KubeObject } from "../../../src/kube/index.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export class WatchConnection {
  private readonly body = new PassThrough();
  /** What the client reads; only the stream members consumeWatch uses are real (`complete` stays false). */
  readonly response: IncomingMessage = Object.assign(this.body, { complete: false }) as unknown as IncomingMessage;
  private readonly queued: string[] = [];
  private held = false;

  constructor(
    /** Whether the watch selects this object (kind, namespace, selectors). */
    readonly selects: (object: KubeObject) => boolean,
    readonly metadataOnly: boolean,
    onClose: () => void,
  ) {
    this.body.on("close", onClose);
  }

  /** Sends the event this change means to this watch: a selector match gained, kept or lost. */
  offer(type: WatchEventType, before: KubeObject | undefined, after: KubeObject): void {
    const was = before !== undefined && this.selects(before);
    const is = type !== "DELETED" && this.selects(after);
    if (!was && !is) return;
    const seen: WatchEventType = type === "DELETED" ? "DELETED" : !was ? "ADDED" : !is ? "DELETED" : "MODIFIED";
    const object = this.metadataOnly
      ? { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: after.metadata }
      : after;
    const line = `${JSON.stringify({ type: seen, object })}\n`;
    if (this.held) this.queued.push(line);
    else this.body.write(line);
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const line of this.queued.splice(0)) this.body.write(line);
  }

  close(): void {
    this.body.end();
  }
}
