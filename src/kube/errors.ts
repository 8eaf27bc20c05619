/**
 * Errors of the kube client: ApiError for every non-2xx answer (with the server's Status
 * fields and the request that got it), KubeconfigError naming the file and field at fault.
 */
import type { Status, StatusDetails } from "kubernetes-types/meta/v1.js";

export interface ApiErrorInit {
  readonly status: number;
  readonly verb: string;
  readonly path: string;
  readonly body?: string;
  readonly cause?: unknown;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code = "KUBE_API_ERROR";
  /** HTTP status code (also for ERROR watch events, from Status.code). */
  readonly status: number;
  /** Status.reason: NotFound, AlreadyExists, Conflict, Invalid, Expired, Gone, … */
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  readonly verb: string;
  readonly path: string;
  readonly serverMessage: string;

  constructor(init: ApiErrorInit, statusObject?: Status) {
    const parsed = statusObject ?? parseStatus(init.body);
    const reason = parsed?.reason ?? reasonFromCode(init.status);
    const serverMessage = parsed?.message ?? (init.body ?? "").slice(0, 500);
    super(`${init.verb} ${init.path}: ${init.status} ${reason}${serverMessage ? `: ${serverMessage}` : ""}`, {
      cause: init.cause,
    });
    this.status = init.status;
    this.reason = reason;
    this.details = parsed?.details;
    this.verb = init.verb;
    this.path = init.path;
    this.serverMessage = serverMessage;
  }
}

function parseStatus(body: string | undefined): Status | undefined {
  if (body === undefined || body === "") return undefined;
  try {
    const value = JSON.parse(body) as Status;
    return value.kind === "Status" ? value : undefined;
  } catch {
    return undefined;
  }
}

function reasonFromCode(status: number): string {
  const reasons: Record<number, string> = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    410: "Gone",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
  };
  return reasons[status] ?? "Unknown";
}

const apiError = (e: unknown): ApiError | undefined => (e instanceof ApiError ? e : undefined);

export const isNotFound = (e: unknown): boolean => apiError(e)?.status === 404;
/** 409 that is not AlreadyExists: a resourceVersion/precondition or SSA field-manager conflict. */
export const isConflict = (e: unknown): boolean =>
  apiError(e)?.status === 409 && apiError(e)?.reason !== "AlreadyExists";
export const isAlreadyExists = (e: unknown): boolean => apiError(e)?.reason === "AlreadyExists";
/** 410: the resourceVersion is too old ("Expired" or "Gone"); relist. */
export const isGone = (e: unknown): boolean => apiError(e)?.status === 410 || apiError(e)?.reason === "Expired";
export const isForbidden = (e: unknown): boolean => apiError(e)?.status === 403;
export const isInvalid = (e: unknown): boolean => apiError(e)?.status === 422;
export const isUnauthorized = (e: unknown): boolean => apiError(e)?.status === 401;

/** A kubeconfig (or in-cluster config) that cannot be used, naming the file and the field. */
export class KubeconfigError extends Error {
  override readonly name = "KubeconfigError";
  readonly code = "KUBECONFIG_INVALID";
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`kubeconfig ${file}${field ? `: ${field}` : ""}: ${problem}`, options);
  }
}

/** An exec credential plugin that failed or printed something unusable. */
export class ExecCredentialError extends Error {
  override readonly name = "ExecCredentialError";
  readonly code = "KUBE_EXEC_CREDENTIAL";
  constructor(
    readonly command: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`exec credential plugin ${command}: ${problem}`, options);
  }
}

/** No HTTP answer at all (connection refused/reset, TLS failure) after all retries. */
export class TransportError extends Error {
  override readonly name = "TransportError";
  readonly code = "KUBE_TRANSPORT";
  constructor(
    readonly verb: string,
    readonly path: string,
    options: { cause: unknown },
  ) {
    super(
      `${verb} ${path}: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`,
      options,
    );
  }
}

export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
  readonly code = "KUBE_KIND_NOT_FOUND";
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no resource for kind ${kind} in ${apiVersion} on this server (discovery refreshed)`);
  }
}

/** A write refused because this process may no longer write (it lost its leader lease). */
export class FencedError extends Error {
  override readonly name = "FencedError";
  readonly code = "KUBE_WRITE_FENCED";
  constructor(
    readonly verb: string,
    readonly path: string,
    readonly why: string,
  ) {
    super(`${verb} ${path}: refused, writes are fenced (${why})`);
  }
}

export const isFenced = (e: unknown): boolean => e instanceof FencedError;

/** The request's deadline (rate-limiter wait + socket wait + response, retries included) passed. */
export const isDeadlineExceeded = (e: unknown): boolean =>
  e instanceof TransportError && (e.cause as { code?: unknown } | undefined)?.code === "KUBE_DEADLINE";

/**
 * The server (or the way to it) failed, not the request: no answer, a 5xx, a 429 — looked for
 * along the error's causes. Work that failed so is worth retrying at once when the server is back.
 */
export function isServerUnavailable(e: unknown): boolean {
  let current: unknown = e;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof TransportError) return true;
    if (current instanceof ApiError) return current.status >= 500 || current.status === 429;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
