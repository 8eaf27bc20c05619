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
 * An instance without a generation (an offline `kro render`) gets every hook as `helm template`
 * prints it. An instance that took over a live release (annotation `helm.kro.run/adopted-release`,
 * set by `kro import helm --release`) ran its install hooks under Helm: generation 1 creates no
 * hook, and install hooks are retained from then on.
 */
import { ANNOTATIONS } from "../../api/index.js";
import { isRecord, metadataOf } from "../identity.js";
import type { KubeJson } from "../types.js";

/** On an instance: it continues a Helm release, whose install hooks have run already. */
export const ADOPTED_RELEASE_ANNOTATION = ANNOTATIONS.helmAdoptedRelease;

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

function hookEvents(object: KubeJson): string[] {
  const annotations = metadataOf(object).annotations;
  const hook = isRecord(annotations) ? annotations["helm.sh/hook"] : undefined;
  return typeof hook === "string"
    ? hook
        .split(",")
        .map((h) => h.trim())
        .filter((h) => h !== "")
    : [];
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
  const apply: KubeJson[] = [];
  const retain: KubeJson[] = [];
  for (const object of objects) {
    const events = hookEvents(object);
    if (events.length === 0) {
      apply.push(object);
      continue;
    }
    const install = events.some((e) => INSTALL_EVENTS.has(e));
    const upgrade = events.some((e) => UPGRADE_EVENTS.has(e));
    if (generation === 1) {
      if (install && !adopted) apply.push(object);
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
      apply.push({ ...object, metadata: { ...metadata, name: runName(name, generation) } });
    } else apply.push(object);
  }
  return { apply, retain };
}
