/**
 * What `kro dev` applies, in which order, and how it retries: Namespaces, then CRDs, then other
 * objects, then RGDs, then instances of the RGDs' kinds. An instance of a kind the controller
 * has not served yet (its CRD is being created) is retried every tick until the kind exists;
 * other rejections (an invalid field) are reported once and wait for the next file change.
 */
import { ApiError, DiscoveryError, type KubeClient, type KubeObject } from "../../kube/index.js";

/** The field manager of everything `kro dev` applies (so `kubectl apply` edits show as a conflict-free second manager). */
export const DEV_FIELD_MANAGER = "kro-dev";

export interface DevObject {
  readonly file: string;
  readonly object: KubeObject;
}

/** The kind an RGD serves, read from either dialect's spec (schema.kind or resourceKind). */
export interface ServedKind {
  readonly rgdName: string;
  readonly group: string;
  readonly kind: string;
}

export function servedKindOf(rgd: KubeObject): ServedKind | undefined {
  const spec = rgd.spec as
    { schema?: { kind?: unknown; group?: unknown }; resourceKind?: { kind?: unknown; group?: unknown } } | undefined;
  const rgdName = rgd.metadata?.name ?? "";
  const cel = spec?.schema;
  if (typeof cel?.kind === "string")
    return {
      rgdName,
      kind: cel.kind,
      group: typeof cel.group === "string" && cel.group !== "" ? cel.group : "kro.run",
    };
  const template = spec?.resourceKind;
  if (typeof template?.kind === "string" && typeof template.group === "string")
    return { rgdName, kind: template.kind, group: template.group };
  return undefined;
}

export const isRgd = (o: KubeObject): boolean =>
  o.kind === "ResourceGraphDefinition" && (o.apiVersion ?? "").startsWith("kro.run/");

const groupOf = (apiVersion: string | undefined): string => {
  const slash = (apiVersion ?? "").indexOf("/");
  return slash < 0 ? "" : (apiVersion ?? "").slice(0, slash);
};

/** The RGD serving this object's kind, if it is an instance. */
export function instanceOf(object: KubeObject, kinds: readonly ServedKind[]): ServedKind | undefined {
  return kinds.find((k) => k.kind === object.kind && k.group === groupOf(object.apiVersion));
}

function rank(object: KubeObject, kinds: readonly ServedKind[]): number {
  if (object.kind === "Namespace" && object.apiVersion === "v1") return 0;
  if (object.kind === "CustomResourceDefinition") return 1;
  if (isRgd(object)) return 3;
  return instanceOf(object, kinds) === undefined ? 2 : 4;
}

/** Stable order for applying (see the file comment). */
export function applyOrder(objects: readonly DevObject[]): DevObject[] {
  const kinds = objects
    .map((o) => o.object)
    .filter(isRgd)
    .flatMap((r) => servedKindOf(r) ?? []);
  return objects
    .map((o, i) => ({ o, i, r: rank(o.object, kinds) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.o);
}

export function describeObject(object: KubeObject): string {
  const ns = object.metadata?.namespace;
  return `${object.kind ?? "?"} ${ns === undefined ? "" : `${ns}/`}${object.metadata?.name ?? "?"}`;
}

export type ApplyOutcome =
  | { readonly state: "applied" }
  | { readonly state: "waiting"; readonly message: string }
  | { readonly state: "failed"; readonly message: string };

/** Kind not served yet, namespace not created yet, server briefly unavailable: try again. */
function retryable(error: unknown): boolean {
  if (error instanceof DiscoveryError) return true;
  return (
    error instanceof ApiError &&
    (error.status === 404 || error.status === 409 || error.status === 429 || error.status >= 500)
  );
}

const errorText = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.reason}: ${error.serverMessage}`
    : error instanceof Error
      ? error.message
      : String(error);

export class DevApplier {
  private pending: DevObject[] = [];
  readonly outcomes = new Map<string, ApplyOutcome>();

  constructor(
    private readonly client: KubeClient,
    private readonly onOutcome: (object: DevObject, outcome: ApplyOutcome) => void,
  ) {}

  /** Applies a new set of objects (everything in the files, after a change), in apply order. */
  async applyAll(objects: readonly DevObject[]): Promise<void> {
    this.pending = [];
    this.outcomes.clear();
    for (const object of applyOrder(objects)) await this.applyOne(object);
  }

  /** Retries the objects still waiting (call on a timer). */
  async retry(): Promise<void> {
    const waiting = this.pending;
    this.pending = [];
    for (const object of waiting) await this.applyOne(object);
  }

  get waiting(): number {
    return this.pending.length;
  }

  private async applyOne(entry: DevObject): Promise<void> {
    let outcome: ApplyOutcome;
    try {
      const object = await this.withNamespace(entry.object);
      await this.client.apply(object, { fieldManager: DEV_FIELD_MANAGER, force: true });
      outcome = { state: "applied" };
    } catch (error) {
      if (retryable(error)) {
        this.pending.push(entry);
        const message =
          error instanceof DiscoveryError
            ? `waiting for kind ${error.kind} (${error.apiVersion}) to be served`
            : errorText(error);
        outcome = { state: "waiting", message };
      } else {
        outcome = { state: "failed", message: errorText(error) };
      }
    }
    const key = describeObject(entry.object);
    const previous = this.outcomes.get(key);
    this.outcomes.set(key, outcome);
    if (previous === undefined || JSON.stringify(previous) !== JSON.stringify(outcome)) this.onOutcome(entry, outcome);
  }

  /** kubectl's rule: a namespaced object without a namespace goes to "default". */
  private async withNamespace(object: KubeObject): Promise<KubeObject> {
    if (object.metadata?.namespace !== undefined) return object;
    const info = await this.client.resourceFor(object.apiVersion ?? "", object.kind ?? "");
    return info.namespaced ? { ...object, metadata: { ...object.metadata, namespace: "default" } } : object;
  }
}
