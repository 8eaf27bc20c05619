/**
 * Options of the client's requests, in their own file so the informer can depend on them
 * without depending on the client.
 */
export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** Per-call control: cancel, or a deadline shorter than the client's (leader election uses both). */
export interface RequestControl {
  readonly signal?: AbortSignal | undefined;
  /** All waiting included: rate limiter, socket, response, retries. */
  readonly timeoutMs?: number | undefined;
}

export interface WriteOptions extends RequestControl {
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
}

export interface ApplyOptions extends WriteOptions {
  readonly fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with a conflict. */
  readonly force?: boolean;
}

export interface ListOptions {
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Page size; every page is fetched (default 500). */
  readonly limit?: number;
  readonly metadataOnly?: boolean;
}

export interface DeleteOptions extends RequestControl {
  readonly dryRun?: boolean;
  readonly propagationPolicy?: "Foreground" | "Background" | "Orphan";
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly gracePeriodSeconds?: number;
}

export interface WatchOptions {
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  /** Server-side end of the watch; the informer picks a random 5–10 min. */
  readonly timeoutSeconds?: number;
  readonly metadataOnly?: boolean;
  readonly signal?: AbortSignal;
}
