/**
 * What `kro dev` knows about each instance it applied, merged from three sources: the applier
 * (was the instance accepted by the API server?), the RGD's and the instance's status as read from
 * the cluster (the truth kubectl shows), and the controller's per-node evaluation after each
 * reconcile (what each resource waits on). Turns that into board rows and a verdict.
 */
import type { InstanceEvaluatedEvent } from "../../controller/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { ApplyOutcome, ServedKind } from "./dev-apply.js";
import type { BoardResource, BoardRow } from "./live-board.js";
import type { NodeState as PictureState } from "../../graph/index.js";
import { INSTANCE_NODE_ID } from "../../graph/index.js";
import { describeNode, instancePicture } from "../inspect/index.js";

export interface InstanceRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly observedGeneration?: number;
}

interface ObjectStatus {
  readonly state?: string;
  readonly conditions?: readonly Condition[];
}

interface Tracked {
  readonly ref: InstanceRef;
  readonly rgdName: string;
  apply?: ApplyOutcome;
  resources?: BoardResource[];
  /**
   * Whether the status of the controller's last evaluation said Ready. The poll can see a status
   * a moment before the reconcile that wrote it reports its evaluation; requiring both keeps
   * the resource lines and the verdict in step.
   */
  evaluatedReady?: boolean;
  /** Node id (and `instance`) → picture state, from the controller's last evaluation. */
  colors?: Record<string, PictureState>;
  status?: ObjectStatus;
  /** metadata.generation as last read: a Ready condition observed for an older spec does not count. */
  generation?: number;
}

const groupOf = (apiVersion: string): string =>
  apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";

export function instanceKey(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${groupOf(apiVersion)}/${kind}/${namespace ?? ""}/${name}`;
}

const keyOf = (ref: InstanceRef): string => instanceKey(ref.apiVersion, ref.kind, ref.namespace, ref.name);

export interface Verdict {
  readonly ready: number;
  readonly total: number;
  /** Nothing will change without an edit: every instance is Ready or stuck on an error. */
  readonly settled: boolean;
  /** One line per instance that is not Ready. */
  readonly notReady: readonly string[];
  /** RGDs with a False condition (e.g. an edit that does not compile: the last valid graph keeps serving). */
  readonly rgdProblems: readonly string[];
}

export class DevState {
  private tracked = new Map<string, Tracked>();
  private readonly rgds = new Map<string, ObjectStatus>();

  /** The instances of the current files; what is known about ones still present is kept. */
  track(instances: readonly { ref: InstanceRef; served: ServedKind }[]): void {
    const next = new Map<string, Tracked>();
    for (const { ref, served } of instances) {
      const previous = this.tracked.get(keyOf(ref));
      next.set(keyOf(ref), { ...previous, ref, rgdName: served.rgdName });
    }
    this.tracked = next;
  }

  refs(): InstanceRef[] {
    return [...this.tracked.values()].map((t) => t.ref);
  }

  rgdNames(): string[] {
    return [...new Set([...this.tracked.values()].map((t) => t.rgdName))];
  }

  onApply(ref: InstanceRef, outcome: ApplyOutcome): void {
    const entry = this.tracked.get(keyOf(ref));
    if (entry !== undefined) entry.apply = outcome;
  }

  onEvaluated(event: InstanceEvaluatedEvent): void {
    const { apiVersion, kind, namespace, name } = event.instance;
    const entry = this.tracked.get(instanceKey(apiVersion, kind, namespace, name));
    if (entry === undefined) return;
    entry.resources = event.evaluation.nodes.map((node) => ({
      id: node.id,
      text: describeNode(node, event.applyErrors[node.id]).text,
    }));
    entry.colors = Object.fromEntries([
      [INSTANCE_NODE_ID, instancePicture((event.status as { state?: unknown }).state)],
      ...event.evaluation.nodes.map(
        (node) => [node.id, describeNode(node, event.applyErrors[node.id]).picture] as const,
      ),
    ]);
    entry.status = event.status;
    entry.evaluatedReady = hasReadyTrue(entry.status);
  }

  /** The instance as read from the cluster (undefined: not found). */
  onInstanceRead(ref: InstanceRef, object: KubeObject | undefined): void {
    const entry = this.tracked.get(keyOf(ref));
    if (entry === undefined || object === undefined) return;
    entry.status = object.status ?? {};
    if (object.metadata?.generation !== undefined) entry.generation = object.metadata.generation;
  }

  onRgdRead(name: string, object: KubeObject | undefined): void {
    if (object === undefined) this.rgds.delete(name);
    else this.rgds.set(name, object.status ?? {});
  }

  /** The live colours of an RGD's graph when exactly one tracked instance uses it (else no single answer). */
  colorsFor(rgdName: string): Record<string, PictureState> | undefined {
    const instances = [...this.tracked.values()].filter((t) => t.rgdName === rgdName);
    const [only] = instances;
    return instances.length === 1 ? only?.colors : undefined;
  }

  rows(): BoardRow[] {
    return [...this.tracked.values()].map((t) => ({
      label: `${t.ref.kind.toLowerCase()}/${t.ref.name}`,
      summary: this.summary(t),
      resources: t.resources ?? [],
    }));
  }

  verdict(): Verdict {
    const entries = [...this.tracked.values()];
    const notReady = entries
      .filter((t) => !isReady(t))
      .map((t) => `${t.ref.kind.toLowerCase()}/${t.ref.name}: ${this.summary(t)}`);
    return {
      ready: entries.length - notReady.length,
      total: entries.length,
      settled: entries.every((t) => isReady(t) || this.stuck(t)),
      notReady,
      rgdProblems: this.rgdNames().flatMap((name) => {
        const failed = (this.rgds.get(name)?.conditions ?? []).find((c) => c.status === "False");
        return failed === undefined
          ? []
          : [`ResourceGraphDefinition ${name}: ${failed.type ?? "?"}=False: ${failed.message ?? failed.reason ?? ""}`];
      }),
    };
  }

  private rgdProblem(t: Tracked): string | undefined {
    const rgd = this.rgds.get(t.rgdName);
    if (rgd === undefined) return `waiting for ResourceGraphDefinition ${t.rgdName}`;
    if (rgd.state === "Active") return undefined;
    const failed = (rgd.conditions ?? []).find((c) => c.status === "False");
    const why =
      failed === undefined
        ? "not processed yet"
        : `${failed.type ?? "?"}=False: ${failed.message ?? failed.reason ?? ""}`;
    return `ResourceGraphDefinition ${t.rgdName} is ${rgd.state ?? "pending"} (${why})`;
  }

  private stuck(t: Tracked): boolean {
    if (t.apply?.state === "failed") return true;
    const rgd = this.rgds.get(t.rgdName);
    if (rgd?.conditions?.some((c) => c.type === "ResourceGraphAccepted" && c.status === "False") === true) return true;
    return t.status?.state === "ERROR";
  }

  private summary(t: Tracked): string {
    if (t.apply?.state === "failed") return `not applied: ${t.apply.message}`;
    const rgdProblem = this.rgdProblem(t);
    if (t.apply?.state === "waiting") return `not applied yet: ${rgdProblem ?? t.apply.message}`;
    if (isReady(t)) return `${t.status?.state ?? "ACTIVE"}, Ready`;
    if (rgdProblem !== undefined && t.status?.state === undefined) return `not Ready: ${rgdProblem}`;
    const state = t.status?.state;
    if (state === undefined) return "applied, waiting for the controller";
    const ready = t.status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status === "True") {
      return hasReadyTrue(t.status, t.generation)
        ? `${state}, Ready (waiting for the reconcile to finish)`
        : `${state}, updating to generation ${String(t.generation)}`;
    }
    const message = ready?.message ?? "";
    return `${state}, not Ready${message === "" ? "" : `: ${message}`}`;
  }
}

function hasReadyTrue(status: ObjectStatus | undefined, generation?: number): boolean {
  return (
    status?.conditions?.some(
      (c) =>
        c.type === "Ready" &&
        c.status === "True" &&
        (c.observedGeneration === undefined || generation === undefined || c.observedGeneration >= generation),
    ) === true
  );
}

function isReady(t: Tracked): boolean {
  return hasReadyTrue(t.status, t.generation) && t.evaluatedReady !== false;
}
