/**
 * Dot paths of `statusMappings.fieldMappings` (docs/reference/seed-dialect.md §7):
 * `status.availableReplicas`, `spec.clusterIP`, `status.loadBalancer.ingress[0].ip`. Keys are
 * anything but `.` and `[`; indexes are non-negative integers in brackets.
 */
import type { PathStep } from "./compiled-graph.js";

const STEP = /^([^.[\]]+)((?:\[[0-9]+\])*)$/;

/** The steps of `text`, or a message saying what is wrong with it. */
export function parseDotPath(text: string): { ok: true; steps: PathStep[] } | { ok: false; message: string } {
  if (text === "") return { ok: false, message: "path is empty" };
  const steps: PathStep[] = [];
  for (const part of text.split(".")) {
    const match = STEP.exec(part);
    if (match === null)
      return {
        ok: false,
        message: `"${text}" is not a dot path (expected keys separated by dots, with optional [n] indexes, e.g. status.loadBalancer.ingress[0].ip)`,
      };
    const [, key = "", indexes = ""] = match;
    steps.push(key);
    for (const index of indexes.matchAll(/\[([0-9]+)\]/g)) steps.push(Number(index[1]));
  }
  return { ok: true, steps };
}

export function formatDotPath(steps: readonly PathStep[]): string {
  return steps.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");
}
