/**
 * Faults a test plants in the fake API: a request that matches fails with a given status (a 409
 * on the next write of X), or runs something on the server just before it is served (the object
 * disappears, or another writer changes it, mid-pass). Each fault fires a set number of times.
 */
export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "apply" | "delete" | "review";

/** One request as the fake saw it (also the request log's entry). */
export interface RequestInfo {
  readonly verb: Verb;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly fieldManager: string | undefined;
}

export type FaultMatch = Partial<
  Pick<RequestInfo, "verb" | "apiVersion" | "kind" | "namespace" | "name" | "subresource">
>;

export type FaultAction =
  | { readonly fail: { readonly status: number; readonly reason: string; readonly message?: string } }
  | { readonly before: () => void | Promise<void> };

interface Fault {
  readonly match: FaultMatch;
  readonly action: FaultAction;
  remaining: number;
}

export const WRITE_VERBS: ReadonlySet<Verb> = new Set(["create", "update", "patch", "apply", "delete"]);

export class Faults {
  private readonly planted: Fault[] = [];
  /** Faults that fired, in order (a test can check its fault was reached). */
  readonly fired: FaultMatch[] = [];

  /** `action` on the next `times` requests that match (every field given must be equal). */
  plant(match: FaultMatch, action: FaultAction, times = 1): void {
    this.planted.push({ match, action, remaining: times });
  }

  /** The next matching request answers 409 Conflict (as a stale resourceVersion would). */
  conflictNext(match: FaultMatch, times = 1): void {
    this.plant(
      match,
      {
        fail: {
          status: 409,
          reason: "Conflict",
          message: "the object has been modified; please apply your changes to the latest version and try again",
        },
      },
      times,
    );
  }

  /** Runs `run` on the server just before the next matching request is served. */
  beforeNext(match: FaultMatch, run: () => void | Promise<void>, times = 1): void {
    this.plant(match, { before: run }, times);
  }

  /** The actions that fire for this request, in the order they were planted. */
  take(request: RequestInfo): FaultAction[] {
    const actions: FaultAction[] = [];
    for (const fault of this.planted) {
      if (fault.remaining <= 0 || !matches(fault.match, request)) continue;
      fault.remaining--;
      this.fired.push(fault.match);
      actions.push(fault.action);
    }
    return actions;
  }

  /** Planted faults that never fired (a test that expects all of them to fire asserts this is empty). */
  pending(): FaultMatch[] {
    return this.planted.filter((f) => f.remaining > 0).map((f) => f.match);
  }
}

function matches(match: FaultMatch, request: RequestInfo): boolean {
  return Object.entries(match).every(([field, value]) => request[field as keyof RequestInfo] === value);
}
