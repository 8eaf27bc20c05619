/**
 * Helm hooks in a declared graph (helm-import.md, Hooks): which hook objects an instance wants at
 * its current generation. Generation 1 is `helm install`, each later generation (a spec change)
 * one `helm upgrade`:
 *
 * - install hooks (pre-/post-install) exist from generation 1; from generation 2 on Helm no longer
 *   touches them, so they are *retained*: neither re-applied (a Job's pod template is immutable)
 *   nor pruned, and not waited for;
 * - upgrade-only hooks (pre-/post-upgrade without an install event) do not run at install;
 * - an upgrade hook that runs to completion (Job, Pod) runs again on every generation from 2 on,
 *   under a generation-suffixed name (`<name>-<generation>`): Helm's default before-hook-creation
 *   deletes and re-creates it, a declarative controller creates the new run and prunes the old one;
 *   other kinds of upgrade hooks are updated in place (what re-creating them amounts to).
 *
 * A hook runs once per generation, as Helm runs it once per install or upgrade: the controller
 * records the runs of the current generation it saw complete (annotation
 * `internal.kro.run/hook-runs`, durable across restarts: completedHookRuns below). A recorded run
 * is no longer applied nor awaited, so its deletion — a Job's `ttlSecondsAfterFinished`, someone
 * cleaning up — does not run it again and does not hold readiness. It is kept (retained) unless its
 * `helm.sh/hook-delete-policy` names `hook-succeeded`: then it is let go, and pruned as Helm deletes
 * it after success.
 *
 * An instance without a generation (an offline `kro render`) gets every hook as `helm template`
 * prints it. An instance that took over a live release (annotation `helm.kro.run/adopted-release`,
 * set by `kro import helm --release`) ran its install hooks under Helm: generation 1 creates no
 * hook, and install hooks are retained from then on.
 */
import { ANNOTATIONS, compareCodeUnits } from "../../api/index.js";
import { isRecord, metadataOf } from "../identity.js";
import type { KubeJson, NodeEvaluation } from "../types.js";

/** On an instance: it continues a Helm release, whose install hooks have run already. */
export const ADOPTED_RELEASE_ANNOTATION = ANNOTATIONS.helmAdoptedRelease;
/** On an instance: the hook runs of its current generation seen complete (completedHookRuns). */
export const HOOK_RUNS_ANNOTATION = ANNOTATIONS.hookRuns;

const RUN_TO_COMPLETION = new Set(["Job", "Pod"]);
const INSTALL_EVENTS = new Set(["pre-install", "post-install"]);
const UPGRADE_EVENTS = new Set(["pre-upgrade", "post-upgrade"]);
/** Kubernetes object names of Jobs and Pods are DNS labels (a Job's name becomes a label value). */
const MAX_NAME = 63;

export interface HookRuns {
  /** What the node applies this generation. */
  readonly apply: readonly KubeJson[];
  /** Hook objects kept as they are: not applied, not pruned, not awaited. */
  readonly retain: readonly KubeJson[];
}

function annotationList(object: KubeJson, name: string): string[] {
  const annotations = metadataOf(object).annotations;
  const value = isRecord(annotations) ? annotations[name] : undefined;
  return typeof value === "string"
    ? value
        .split(",")
        .map((h) => h.trim())
        .filter((h) => h !== "")
    : [];
}

const hookEvents = (object: KubeJson): string[] => annotationList(object, "helm.sh/hook");

/** How a run is named in the record: kind and name (a hook's namespace is the instance's). */
function runKey(object: KubeJson): string {
  const name = metadataOf(object).name;
  return `${typeof object.kind === "string" ? object.kind : ""}/${typeof name === "string" ? name : ""}`;
}

interface RecordedRuns {
  readonly generation: number;
  readonly done: readonly string[];
}

/** The record on the instance; undefined when absent or unreadable (then nothing counts as done). */
function recordedRuns(instance: KubeJson): RecordedRuns | undefined {
  const annotations = metadataOf(instance).annotations;
  const raw = isRecord(annotations) ? annotations[HOOK_RUNS_ANNOTATION] : undefined;
  if (typeof raw !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.generation !== "number" || !Array.isArray(parsed.done)) return undefined;
  return { generation: parsed.generation, done: parsed.done.filter((d): d is string => typeof d === "string") };
}

/** The runs of `generation` recorded as complete. */
function doneRuns(instance: KubeJson, generation: number): ReadonlySet<string> {
  const recorded = recordedRuns(instance);
  return new Set(recorded?.generation === generation ? recorded.done : []);
}

/** `<name>-<generation>`, the name shortened so that the result stays a valid DNS label. */
export function runName(name: string, generation: number): string {
  const suffix = `-${generation}`;
  const base =
    name.length + suffix.length > MAX_NAME ? name.slice(0, MAX_NAME - suffix.length).replace(/[-.]+$/, "") : name;
  return `${base}${suffix}`;
}

function generationOf(instance: KubeJson): number | undefined {
  const generation = metadataOf(instance).generation;
  return typeof generation === "number" && Number.isInteger(generation) && generation >= 1 ? generation : undefined;
}

function adoptedRelease(instance: KubeJson): boolean {
  const annotations = metadataOf(instance).annotations;
  return isRecord(annotations) && typeof annotations[ADOPTED_RELEASE_ANNOTATION] === "string";
}

/** Splits one node's rendered objects into what this generation applies and which hook objects it keeps. */
export function hookRuns(objects: readonly KubeJson[], instance: KubeJson): HookRuns {
  const generation = generationOf(instance);
  if (generation === undefined) return { apply: objects, retain: [] };
  const adopted = adoptedRelease(instance);
  const done = doneRuns(instance, generation);
  const apply: KubeJson[] = [];
  const retain: KubeJson[] = [];
  // A run of this generation: applied until it is recorded complete, then kept or let go.
  const run = (object: KubeJson): void => {
    if (!done.has(runKey(object))) apply.push(object);
    else if (!annotationList(object, "helm.sh/hook-delete-policy").includes("hook-succeeded")) retain.push(object);
  };
  for (const object of objects) {
    const events = hookEvents(object);
    if (events.length === 0) {
      apply.push(object);
      continue;
    }
    const install = events.some((e) => INSTALL_EVENTS.has(e));
    const upgrade = events.some((e) => UPGRADE_EVENTS.has(e));
    if (generation === 1) {
      if (install && !adopted) run(object);
      else if (install) retain.push(object);
      continue;
    }
    if (!upgrade) {
      if (install) retain.push(object);
      continue;
    }
    if (typeof object.kind === "string" && RUN_TO_COMPLETION.has(object.kind)) {
      const metadata = metadataOf(object);
      const name = typeof metadata.name === "string" ? metadata.name : "";
      run({ ...object, metadata: { ...metadata, name: runName(name, generation) } });
    } else run(object);
  }
  return { apply, retain };
}

/**
 * The record to write on the instance (undefined: nothing new): the runs of `objects` (hook objects
 * of the instance's generation, as a node applies them) added to those recorded already for that
 * generation; a record of an earlier generation is replaced.
 */
export function hookRunRecord(instance: KubeJson, objects: readonly KubeJson[]): string | undefined {
  const generation = generationOf(instance);
  if (generation === undefined) return undefined;
  const done = new Set(doneRuns(instance, generation));
  const before = done.size;
  for (const object of objects) if (hookEvents(object).length > 0) done.add(runKey(object));
  if (done.size === before) return undefined;
  return JSON.stringify({ generation, done: [...done].sort(compareCodeUnits) });
}

/**
 * The hook objects of this pass whose run is complete: every hook object a ready node applied
 * (Job complete, Pod succeeded, other kinds on existence: the node's readyWhen).
 */
export function completedHookObjects(
  nodes: readonly Pick<NodeEvaluation, "ready" | "excluded" | "error" | "desired">[],
): KubeJson[] {
  return nodes
    .filter((n) => n.ready && !n.excluded && n.error === undefined)
    .flatMap((n) => n.desired.filter((o) => hookEvents(o).length > 0));
}

/** The record after a pass whose ready nodes completed hook runs (undefined: nothing new). */
export function completedHookRuns(
  instance: KubeJson,
  nodes: readonly Pick<NodeEvaluation, "ready" | "excluded" | "error" | "desired">[],
): string | undefined {
  return hookRunRecord(instance, completedHookObjects(nodes));
}

/**
 * Hook objects of the pass that run to completion (Jobs, Pods): a run of one of these that we
 * created and that is gone has finished, as far as Helm is concerned (its wait ends on the
 * Deleted event too); a Job's ttlSecondsAfterFinished can delete it before the controller sees it
 * complete.
 */
export function runToCompletionHooks(nodes: readonly Pick<NodeEvaluation, "excluded" | "desired">[]): KubeJson[] {
  return nodes
    .filter((n) => !n.excluded)
    .flatMap((n) =>
      n.desired.filter((o) => hookEvents(o).length > 0 && typeof o.kind === "string" && RUN_TO_COMPLETION.has(o.kind)),
    );
}
