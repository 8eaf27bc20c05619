/**
 * The childResources of an imported chart: one `manifests` child per (template, kind), in Helm's
 * install order, hooks as ordered children, subchart children gated by their dependency's
 * `condition:`/`tags:` (evaluated per instance, so toggling a subchart works like helm upgrade).
 */
import type { HelmContext } from "../graph/index.js";
import { isTestHook, renderChartTemplate, type KubeJson } from "../runtime/index.js";
import type { ChartDependency, LoadedChart } from "./chart-load.js";
import { compareHooks, hookChain, hookWeight, type HookKey } from "./hook-order.js";
import { installDependencies } from "./install-order.js";
import { gatesLaterKinds, readyWhenFor } from "./readiness.js";
import { resolveTemplatedKinds } from "./template-api-versions.js";
import {
  hookOf,
  hookPhase,
  staticKinds,
  unsupportedCalls,
  type TemplateHook,
  type TemplateKind,
} from "./template-scan.js";
import type { HelmImportWarning } from "./types.js";

export interface ChartChild {
  readonly id: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly manifests: string;
  readonly condition?: string;
  readonly dependsOn?: readonly string[];
  readonly readyWhen?: readonly string[];
}

interface Draft {
  id: string;
  apiVersion: string;
  kind: string;
  template: string;
  phase: "main" | "pre" | "post";
  condition: string | undefined;
  /** Where the child's first object sits in Helm's hook order (hooks only). */
  hookKey?: HookKey;
}

function camel(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  const joined = words
    .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("");
  return /^[a-z]/.test(joined) ? joined : `t${joined}`;
}

const groupKindOf = (k: TemplateKind): string =>
  `${k.apiVersion.includes("/") ? k.apiVersion.split("/")[0] : ""}/${k.kind}`;

/** Go template text over .parent.spec that sets `$on` to whether Helm would enable `dep` (tags, then the first condition path holding a bool). */
export function dependencyConditionTemplate(dep: ChartDependency, parentPath: readonly string[]): string | undefined {
  const paths = (dep.condition ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (paths.length === 0 && dep.tags.length === 0) return undefined;
  const lookup = (keys: readonly string[]): string =>
    `{{- $v = $.parent.spec -}}${keys.map((k) => `{{- if eq (printf "%T" $v) "map[string]interface {}" -}}{{- $v = index $v ${JSON.stringify(k)} -}}{{- else -}}{{- $v = "" -}}{{- end -}}`).join("")}`;
  let text = '{{- $on := true -}}{{- $v := "" -}}';
  if (dep.tags.length > 0) {
    text += "{{- $anyTrue := false -}}{{- $anyFalse := false -}}";
    for (const tag of dep.tags)
      text += `${lookup(["tags", tag])}{{- if eq (printf "%v" $v) "true" -}}{{- $anyTrue = true -}}{{- else if eq (printf "%v" $v) "false" -}}{{- $anyFalse = true -}}{{- end -}}`;
    text += "{{- if $anyTrue -}}{{- $on = true -}}{{- else if $anyFalse -}}{{- $on = false -}}{{- end -}}";
  }
  text += "{{- $decided := false -}}";
  for (const path of paths) {
    text += `{{- if not $decided -}}${lookup([...parentPath, ...path.split(".")])}{{- if eq (printf "%T" $v) "bool" -}}{{- $on = $v -}}{{- $decided = true -}}{{- end -}}{{- end -}}`;
  }
  return text;
}

/** One condition template out of the enabling rules of every dependency on the way from the root chart. */
export function combinedCondition(bodies: readonly string[]): string | undefined {
  if (bodies.length === 0) return undefined;
  return `{{- $all := true -}}${bodies.map((b) => `${b}{{- if not $on -}}{{- $all = false -}}{{- end -}}`).join("")}{{- $all -}}`;
}

interface Scope {
  readonly chart: LoadedChart;
  readonly valuesPath: readonly string[];
  readonly idPrefix: string;
  readonly conditions: readonly string[];
  readonly enabled: boolean;
}

function allScopes(
  chart: LoadedChart,
  enabledOf: (parent: LoadedChart, sub: LoadedChart, parentPath: readonly string[]) => boolean,
  scope?: Scope,
): Scope[] {
  const here: Scope = scope ?? { chart, valuesPath: [], idPrefix: "", conditions: [], enabled: true };
  const out = [here];
  for (const sub of chart.subcharts) {
    const dep = chart.dependencies.find((d) => (d.alias ?? d.name) === sub.name);
    const condition = dep === undefined ? undefined : dependencyConditionTemplate(dep, here.valuesPath);
    out.push(
      ...allScopes(sub, enabledOf, {
        chart: sub,
        valuesPath: [...here.valuesPath, sub.name],
        idPrefix: camel(`${here.idPrefix} ${sub.name}`),
        conditions: condition === undefined ? here.conditions : [...here.conditions, condition],
        enabled: here.enabled && enabledOf(chart, sub, here.valuesPath),
      }),
    );
  }
  return out;
}

/** Every chart (root first) with its values path, id prefix and enabling conditions. */
export function chartScopes(
  root: LoadedChart,
  enabledOf: (parent: LoadedChart, sub: LoadedChart, parentPath: readonly string[]) => boolean,
): Scope[] {
  return allScopes(root, enabledOf);
}

function templateKinds(
  scope: Scope,
  name: string,
  text: string,
  helm: HelmContext,
  instance: KubeJson,
  file: string,
  warnings: HelmImportWarning[],
): TemplateKind[] {
  const kinds = new Map<string, TemplateKind>();
  if (scope.enabled) {
    const rendered = renderChartTemplate(helm, name, instance);
    if (!rendered.ok)
      warnings.push({
        file,
        // The chart renders as one: a template that fails elsewhere is named, not blamed on this file.
        message:
          rendered.failedTemplate !== undefined && rendered.failedTemplate !== name
            ? `its kinds come from its text alone: the chart does not render with its values, because template ${rendered.failedTemplate} fails (${rendered.error ?? "pending"})`
            : `does not render with the chart's values (${rendered.error ?? "pending"}); its kinds come from its text alone`,
      });
    else
      for (const object of rendered.value)
        if (!isTestHook(object))
          kinds.set(groupKindOf(object as unknown as TemplateKind), {
            apiVersion: String(object.apiVersion),
            kind: String(object.kind),
          });
  }
  const found = staticKinds(text);
  // A kind the values rendered has its apiVersion from that render; the others from their expression.
  const unrendered = found.templated.filter((t) => ![...kinds.values()].some((k) => k.kind === t.kind));
  const resolved = resolveTemplatedKinds(helm, scope.chart.templatePrefix, unrendered, instance, file);
  for (const k of [...found.kinds, ...resolved]) if (!kinds.has(groupKindOf(k))) kinds.set(groupKindOf(k), k);
  return [...kinds.values()];
}

/**
 * A template's hook. A templated annotation (`"helm.sh/hook": {{ $hookType }}`) is settled by the
 * render with the chart's values, as Helm decides per rendered object; one that cannot be rendered
 * leaves the template out, said with its expression.
 */
function settledHook(
  scope: Scope,
  name: string,
  text: string,
  helm: HelmContext,
  instance: KubeJson,
  file: string,
  warnings: HelmImportWarning[],
): TemplateHook | "unsettled" | undefined {
  const found = hookOf(text);
  if (found === undefined || !("templated" in found)) return found;
  const rendered = scope.enabled ? renderChartTemplate(helm, name, instance) : undefined;
  if (rendered?.ok !== true) {
    warnings.push({
      file,
      line: found.line,
      message: `hook annotation ${found.templated} is templated and the template does not render with the chart's values${scope.enabled ? "" : " (its chart is disabled)"}: the template is left out`,
    });
    return "unsettled";
  }
  const value = rendered.value
    .map((o) => (o.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations?.["helm.sh/hook"])
    .find((v) => typeof v === "string");
  if (value === undefined) {
    warnings.push({
      file,
      line: found.line,
      message: `hook annotation ${found.templated} renders no hook with the chart's values: imported as ordinary objects`,
    });
    return undefined;
  }
  return hookPhase(value, found.line);
}

const HOOK_POD_SUCCEEDED = `{{- eq ((.self.status | default dict).phase | default "") "Succeeded" -}}`;
const WEIGHT_LINE = /["']?helm\.sh\/hook-weight["']?[ \t]*:[ \t]*["']?([+-]?\d+)["']?/;

/** A hook child's place in Helm's order: from its first object as the chart's values render it, else from the template text. */
function hookKeyOf(
  scope: Scope,
  id: string,
  kind: string,
  template: string,
  text: string,
  condition: string | undefined,
  helm: HelmContext,
  instance: KubeJson,
): HookKey {
  const rendered = scope.enabled ? renderChartTemplate(helm, template, instance) : undefined;
  const keys = (rendered?.ok === true ? rendered.value : [])
    .filter((o) => o.kind === kind)
    .map((o) => {
      const metadata = (o.metadata ?? {}) as { name?: unknown; annotations?: Record<string, unknown> };
      return {
        id,
        kind,
        condition,
        weight: hookWeight(metadata.annotations?.["helm.sh/hook-weight"]),
        name: typeof metadata.name === "string" ? metadata.name : "",
      };
    });
  const [first] = keys.sort(compareHooks);
  return first ?? { id, kind, condition, weight: hookWeight(WEIGHT_LINE.exec(text)?.[1]), name: "" };
}

export function chartChildren(
  scopes: readonly Scope[],
  helm: HelmContext,
  instance: KubeJson,
  warnings: HelmImportWarning[],
): ChartChild[] {
  const drafts: Draft[] = [];
  const used = new Set<string>();
  for (const scope of scopes) {
    for (const [name, text] of scope.chart.templates) {
      const relative = name.slice(scope.chart.templatePrefix.length);
      const file = `${scope.chart.dir}${relative}`;
      const base = relative.split("/").pop() ?? relative;
      if (base.startsWith("_")) continue;
      // A library chart's templates only define helpers; Helm renders none of its other files.
      if (scope.chart.metadata.type === "library") continue;
      if (relative === "templates/NOTES.txt") {
        warnings.push({ file, message: "install notes are not carried over (kro-ts prints no notes)" });
        continue;
      }
      for (const call of unsupportedCalls(text)) warnings.push({ file, line: call.line, message: call.what });
      const hook = settledHook(scope, name, text, helm, instance, file, warnings);
      if (hook === "unsettled") continue;
      if (hook?.phase === "test") {
        warnings.push({
          file,
          line: hook.line,
          message: `test hook (${hook.hooks.join(",")}) dropped: kro-ts has no helm test`,
        });
        continue;
      }
      if (hook?.phase === "unsupported") {
        warnings.push({
          file,
          line: hook.line,
          message: `hook ${hook.hooks.join(",")} is not supported (only pre/post-install and -upgrade); the template is left out`,
        });
        continue;
      }
      if (hook !== undefined)
        warnings.push({
          file,
          line: hook.line,
          message: `hook ${hook.hooks.join(",")} becomes an ordered child: run ${hook.phase === "pre" ? "before" : "after"} the other objects, in hook-weight order; see docs/design/helm-import.md (Hooks) for how upgrades re-run it and what hook-delete-policy does`,
        });
      const kinds = templateKinds(scope, name, text, helm, instance, file, warnings);
      const stem = camel(`${scope.idPrefix} ${relative.replace(/^templates\//, "").replace(/\.[A-Za-z0-9]+$/, "")}`);
      for (const k of kinds) {
        let id = kinds.length > 1 || stem.toLowerCase() !== k.kind.toLowerCase() ? `${stem}${k.kind}` : stem;
        for (let n = 2; used.has(id); n++) id = `${stem}${k.kind}${n}`;
        used.add(id);
        const phase = hook?.phase === "pre" || hook?.phase === "post" ? hook.phase : "main";
        const condition = combinedCondition(scope.conditions);
        drafts.push({
          id,
          apiVersion: k.apiVersion,
          kind: k.kind,
          template: name,
          phase,
          condition,
          ...(phase === "main" ? {} : { hookKey: hookKeyOf(scope, id, k.kind, name, text, condition, helm, instance) }),
        });
      }
    }
  }
  const main = drafts.filter((d) => d.phase === "main");
  const order = installDependencies(
    main.map((d) => ({
      id: d.id,
      kind: d.kind,
      waits: !gatesLaterKinds(d.kind),
      ...(d.condition === undefined ? {} : { condition: d.condition }),
    })),
  );
  const pre = drafts.filter((d) => d.phase === "pre");
  const chain = new Map([
    ...hookChain(pre.flatMap((d) => d.hookKey ?? [])),
    ...hookChain(drafts.filter((d) => d.phase === "post").flatMap((d) => d.hookKey ?? [])),
  ]);
  // Never depend on a child that may be excluded while the dependent is not: kro would exclude the dependent too.
  const safe = (d: Draft) => (other: Draft) => other.condition === undefined || other.condition === d.condition;
  return drafts.map((d) => {
    const dependsOn =
      d.phase === "main"
        ? [...pre.filter(safe(d)).map((p) => p.id), ...(order.get(d.id) ?? [])]
        : [...(d.phase === "post" ? main.filter(safe(d)).map((m) => m.id) : []), ...(chain.get(d.id) ?? [])];
    // A hook Pod runs to completion: Helm waits for it to succeed, not to be Ready.
    const readyWhen = d.phase !== "main" && d.kind === "Pod" ? [HOOK_POD_SUCCEEDED] : readyWhenFor(d.kind);
    return {
      id: d.id,
      apiVersion: d.apiVersion,
      kind: d.kind,
      manifests: d.template,
      ...(d.condition === undefined ? {} : { condition: d.condition }),
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
      ...(readyWhen.length > 0 ? { readyWhen } : {}),
    };
  });
}
