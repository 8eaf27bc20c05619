/**
 * The human form of a `kro diff` report, pure: the CRD verdict, each instance's objects with a
 * sign per action and their field changes, then the summary over all instances.
 */
import type { FieldChange } from "./diff-fields.js";
import type { DiffReport, InstanceDiff, ObjectAction, ObjectDiff, SummaryLine } from "./diff-model.js";
import { instanceChanges, instanceFails } from "./diff-model.js";

const SIGNS: Record<ObjectAction, string> = {
  create: "+",
  update: "~",
  adopt: "~",
  unchanged: "=",
  delete: "-",
  release: "-",
  "delete-refused": "!",
  deleting: "-",
  conflict: "!",
  error: "!",
  pending: "?",
};

const WORDS: Record<ObjectAction, string> = {
  create: "created",
  update: "changed",
  adopt: "adopted",
  unchanged: "unchanged",
  delete: "deleted",
  release: "released (kept, no longer managed)",
  "delete-refused": "not deleted: refused",
  deleting: "already being deleted",
  conflict: "conflict",
  error: "would fail",
  pending: "not known yet",
};

/** Long values are cut: the JSON output has them whole. */
export function showValue(value: unknown, limit = 80): string {
  // JSON.stringify(undefined) is undefined at run time, whatever its type says.
  const text = (JSON.stringify(value) as string | undefined) ?? "undefined";
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

export function formatFieldChange(change: FieldChange): string {
  if (!("before" in change)) return `${change.path}: + ${showValue(change.after)}`;
  if (!("after" in change)) return `${change.path}: - ${showValue(change.before)}`;
  return `${change.path}: ${showValue(change.before)} → ${showValue(change.after)}`;
}

/** " ns/name", as kubectl names an object after its kind. */
const where = (o: { namespace?: string; name?: string }): string =>
  o.name === undefined ? "" : ` ${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`;

function objectLines(object: ObjectDiff): string[] {
  const reason = object.reason === undefined ? "" : `: ${object.reason}`;
  const head = `  ${SIGNS[object.action]} ${object.nodeId}: ${object.kind}${where(object)} ${WORDS[object.action]}${reason}`;
  return [head, ...(object.fields ?? []).map((f) => `      ${formatFieldChange(f)}`)];
}

/** Under a rollout policy: ` [wave 2/3 "half"]`, or ` [pinned to revision 4]`. */
function waveText(diff: InstanceDiff): string {
  const r = diff.rollout;
  if (r === undefined) return "";
  return r.kind === "pinned" ? ` [pinned to revision ${r.pin}]` : ` [wave ${r.index + 1}/${r.of} "${r.name}"]`;
}

function instanceLines(diff: InstanceDiff): string[] {
  const title = `${diff.kind}${where(diff)}${waveText(diff)}`;
  if (diff.error !== undefined) return [`${title}: cannot be previewed: ${diff.error}`];
  const lines: string[] = [];
  if (diff.instance !== undefined && diff.instance.action !== "unchanged") {
    lines.push(
      `  ${diff.instance.action === "create" ? "+" : "~"} the instance itself ${diff.instance.action === "create" ? "is created" : "changes"}`,
    );
    for (const f of diff.instance.fields) lines.push(`      ${formatFieldChange(f)}`);
  }
  for (const object of diff.objects) if (object.action !== "unchanged") lines.push(...objectLines(object));
  if (!instanceChanges(diff) && !instanceFails(diff))
    return [`${title}: no changes${lines.length === 0 ? "" : ` (${lines.length} not known yet)`}`, ...lines];
  return [title, ...lines];
}

function summaryLine(line: SummaryLine): string[] {
  const what = `${line.count} ${line.kind} (${line.nodeId})`;
  if (line.fields !== undefined && (line.action === "update" || line.action === "adopt")) {
    return line.fields.map(
      (f) => `  ${f.count} ${line.kind} (${line.nodeId}) ${line.action === "adopt" ? "adopted, " : ""}change ${f.path}`,
    );
  }
  const reasons = line.reasons === undefined ? "" : `: ${line.reasons.join("; ")}`;
  return [`  ${what} ${WORDS[line.action]}${reasons}`];
}

export function formatReport(report: DiffReport): string {
  const out: string[] = [
    `ResourceGraphDefinition ${report.rgd}: ${report.instances.length} instance${report.instances.length === 1 ? "" : "s"} of ${report.instanceKind}`,
  ];
  if (report.rgdRefused !== undefined) {
    out.push(`ResourceGraphDefinition ${report.rgd}: REFUSED by the API server: ${report.rgdRefused}`);
    out.push("  the controller keeps serving the current graph: nothing below happens until the RGD is accepted");
  }
  const crd = report.crd;
  if (crd !== undefined) {
    if (crd.action === "refused") {
      out.push(
        `CustomResourceDefinition ${crd.name}: REFUSED by ${crd.refusedBy ?? "the breaking-change gate"}: ${crd.reason ?? ""}`,
      );
      out.push("  the controller keeps serving the current graph: nothing below happens until the change is allowed");
    } else {
      const changes = [
        ...crd.breaking.map((c) => `${c} (breaking, allowed by kro.run/allow-breaking-changes)`),
        ...crd.nonBreaking,
      ];
      out.push(
        `CustomResourceDefinition ${crd.name}: ${crd.action === "unchanged" ? "unchanged" : crd.action === "create" ? "created" : "updated"}${crd.reason === undefined ? "" : `: ${crd.reason}`}`,
      );
      for (const change of changes) out.push(`  ${change}`);
    }
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  for (const diff of report.instances) out.push(...instanceLines(diff));
  const s = report.summary;
  const head = `Summary: ${s.instances} instance${s.instances === 1 ? "" : "s"}, ${s.changed} would change${s.failing > 0 ? `, ${s.failing} would fail or cannot be previewed` : ""}`;
  out.push(s.lines.length === 0 ? head : `${head}:`);
  for (const line of s.lines) out.push(...summaryLine(line));
  return `${out.join("\n")}\n`;
}
