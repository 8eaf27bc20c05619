/**
 * An RGD's rollout in a few lines, from its policy, `status.rollout`, the `Propagated` condition
 * and the pause annotation: what `kro rollout status` prints and the web view's RGD page shows (pure).
 */
import { ANNOTATIONS } from "../api/index.js";

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

interface FullRolloutStatus {
  readonly target?: number;
  readonly rejected?: readonly { readonly revision?: number; readonly by?: string; readonly at?: string }[];
  readonly wave?: { readonly index?: number; readonly name?: string; readonly of?: number };
  readonly updated?: number;
  readonly total?: number;
  readonly halted?: {
    readonly revision?: number;
    readonly wave?: number;
    readonly at?: string;
    readonly instances?: readonly InstanceReason[];
  };
  readonly pinProblems?: readonly InstanceReason[];
}

interface InstanceReason {
  readonly namespace?: string;
  readonly name?: string;
  readonly reason?: string;
}

const instanceLine = (indent: string, i: InstanceReason): string =>
  `${indent}${i.namespace === undefined ? "" : `${i.namespace}/`}${i.name ?? "?"}: ${i.reason ?? ""}`;

export interface RgdWithConditions {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: { readonly rollout?: unknown };
  readonly status?: { readonly rollout?: FullRolloutStatus; readonly conditions?: readonly Condition[] };
}

/** Instances healthy at the target out of all, when a rollout is reported (a progress bar's values). */
export function rolloutProgress(rgd: RgdWithConditions): { updated: number; total: number } | undefined {
  const rollout = rgd.status?.rollout;
  if (rgd.spec?.rollout === undefined || rollout?.target === undefined) return undefined;
  return { updated: rollout.updated ?? 0, total: rollout.total ?? 0 };
}

function headline(name: string, rollout: FullRolloutStatus | undefined): string {
  if (rollout?.target === undefined) return `${name}: no rollout reported yet (is the controller running?)`;
  const wave = rollout.wave;
  const waveName = wave?.name === undefined ? "" : ` "${wave.name}"`;
  const waveText = wave?.index === undefined ? "" : `, wave ${wave.index + 1}/${wave.of ?? "?"}${waveName}`;
  return `${name}: revision ${rollout.target}${waveText}, ${rollout.updated ?? 0}/${rollout.total ?? 0} instances healthy there`;
}

function haltLines(halted: FullRolloutStatus["halted"]): string[] {
  if (halted === undefined) return [];
  const at = halted.at === undefined ? "" : ` at ${halted.at}`;
  return [
    `  halted: revision ${halted.revision ?? "?"} failed its gate in wave ${(halted.wave ?? 0) + 1}${at}`,
    ...(halted.instances ?? []).map((failed) => instanceLine("    ", failed)),
  ];
}

function rejectionLines(rollout: FullRolloutStatus | undefined): string[] {
  return (rollout?.rejected ?? []).map(
    (r) => `  rejected: revision ${r.revision ?? "?"} (by ${r.by ?? "?"}${r.at === undefined ? "" : `, ${r.at}`})`,
  );
}

export function rolloutReport(rgd: RgdWithConditions): string {
  const name = rgd.metadata?.name ?? "?";
  if (rgd.spec?.rollout === undefined)
    return `${name}: no spec.rollout — every instance takes a new revision at once (as in kro)\n`;
  const rollout = rgd.status?.rollout;
  const paused = rgd.metadata?.annotations?.[ANNOTATIONS.rolloutPaused]?.toLowerCase() === "true";
  const propagated = rgd.status?.conditions?.find((c) => c.type === "Propagated");
  const lines = [
    headline(name, rollout),
    ...(paused ? ["  paused: nothing moves until `kro rollout resume`"] : []),
    ...haltLines(rollout?.halted),
    ...rejectionLines(rollout),
    ...(rollout?.pinProblems ?? []).map((p) => instanceLine("  pin not honoured: ", p)),
    ...(propagated === undefined
      ? []
      : [`  Propagated=${propagated.status ?? "?"} ${propagated.reason ?? ""}: ${propagated.message ?? ""}`.trimEnd()]),
  ];
  return `${lines.join("\n")}\n`;
}
