/**
 * A `manifests` child (template-dialect.md §9): one chart template renders a YAML stream of zero,
 * one or many objects; the child owns those of its kind. The stream is rendered once per pass and
 * template (memoised on the instance object the pass reads), split like Helm's SplitManifests,
 * and each document parsed. Objects of a kind no child of the template owns are an error; test
 * hooks are dropped (kro has no `helm test`).
 */
import { groupKind, type CompiledNode, type HelmContext } from "../../graph/index.js";
import { isTemplateError, type HelmLookup, type RenderDeadline } from "../../template/index.js";
import type { Outcome } from "../dialect.js";
import { isRecord, metadataOf } from "../identity.js";
import type { ChartRenderPort, HelmCapabilities, KubeJson, ParsedTemplate } from "../types.js";
import { parseRenderedBody } from "./desired.js";
import { answerFingerprint } from "./helm-cluster.js";
import type { HelmRenderEnv } from "../types.js";
import { renderChart } from "./helm-engine.js";
import { hookRuns } from "./hook-runs.js";

/** Helm's releaseutil separator: `---` at a line start, with surrounding whitespace. */
const SEPARATOR = /(?:^|\s*\n)---\s*/;
const TEST_HOOKS = new Set(["test", "test-success", "test-failure"]);

/**
 * The chart's last render per instance object, with what it read of the cluster: reused while
 * the capabilities are the same object and every lookup it made answers the same now (the
 * lookups are asked again, which also records their scopes for this pass). A changed answer
 * renders again — that is the bounded two-pass render: pass one reads what is cached, the
 * controller watches what it asked for, the next pass renders with the answers.
 */
/** A chart render's outcome; a failure names the template whose render failed, when known. */
export type ChartOutcome = Outcome<ReadonlyMap<string, string>> & { readonly failedTemplate?: string };

interface ChartRender {
  readonly outcome: ChartOutcome;
  readonly capabilities: HelmRenderEnv["capabilities"];
  readonly calls: readonly { readonly args: readonly [string, string, string, string]; readonly fingerprint: string }[];
}
const rendered = new WeakMap<KubeJson, ChartRender>();
/** Parsed documents per render's outputs (or failed outcome), by template. */
const parsed = new WeakMap<object, Map<string, Outcome<readonly KubeJson[]>>>();

function stillValid(cached: ChartRender, env: HelmRenderEnv | undefined): boolean {
  if (cached.capabilities !== env?.capabilities) return false;
  if (cached.calls.length === 0) return true;
  const lookup = env?.lookup;
  if (lookup === undefined) return false;
  try {
    return cached.calls.every((call) => answerFingerprint(lookup(...call.args)) === call.fingerprint);
  } catch {
    return false; // refused now: render again, so the error names the template and line
  }
}

/** A render elsewhere (HelmRenderEnv.render): its answer, or pending while it runs. */
function chartOutputElsewhere(
  render: ChartRenderPort,
  helm: HelmContext,
  instance: KubeJson,
  env: HelmRenderEnv,
): ChartOutcome {
  const answer = render({
    helm,
    instance,
    ...(env.capabilities === undefined ? {} : { capabilities: env.capabilities }),
    ...(env.lookup === undefined ? {} : { lookup: env.lookup }),
  });
  if (answer === undefined)
    return { ok: false, pending: { kind: "data-pending", message: "the chart is rendering (in a worker thread)" } };
  const outcome: ChartOutcome = answer.ok
    ? { ok: true, value: answer.outputs }
    : {
        ok: false,
        error: answer.error,
        ...(answer.failedTemplate === undefined ? {} : { failedTemplate: answer.failedTemplate }),
      };
  rendered.set(instance, { outcome, capabilities: env.capabilities, calls: answer.calls });
  // Parsed where it rendered: the memo below starts with those documents.
  if (answer.ok && answer.documents !== undefined && !parsed.has(answer.outputs))
    parsed.set(answer.outputs, new Map(answer.documents));
  return outcome;
}

/**
 * The chart's templates rendered for `instance` here and now: the outputs, or the error naming
 * the file and line (a TemplateError: Go's message, a budget or the deadline). What a worker runs.
 */
export function renderChartOutputs(
  helm: HelmContext,
  instance: KubeJson,
  cluster: { capabilities?: HelmCapabilities; lookup?: HelmLookup; deadline?: RenderDeadline } = {},
): ChartOutcome {
  try {
    return { ok: true, value: renderChart(helm, instance, cluster) };
  } catch (e) {
    if (!isTemplateError(e)) throw e;
    const where = e.file === undefined ? "" : ` (${e.file}:${e.line})`;
    return {
      ok: false,
      error: `the chart failed to render${where}: ${e.message}`,
      ...(e.template === undefined ? {} : { failedTemplate: e.template }),
    };
  }
}

function chartOutput(helm: HelmContext, instance: KubeJson, env: HelmRenderEnv | undefined): ChartOutcome {
  const cached = rendered.get(instance);
  if (cached && stillValid(cached, env)) return cached.outcome;
  if (env?.render !== undefined) return chartOutputElsewhere(env.render, helm, instance, env);
  const calls: { args: [string, string, string, string]; fingerprint: string }[] = [];
  const envLookup = env?.lookup;
  const lookup =
    envLookup === undefined
      ? undefined
      : (apiVersion: string, kind: string, namespace: string, name: string) => {
          const found = envLookup(apiVersion, kind, namespace, name);
          calls.push({ args: [apiVersion, kind, namespace, name], fingerprint: answerFingerprint(found) });
          return found;
        };
  const outcome = renderChartOutputs(helm, instance, {
    ...(env?.capabilities === undefined ? {} : { capabilities: env.capabilities }),
    ...(lookup === undefined ? {} : { lookup }),
  });
  rendered.set(instance, { outcome, capabilities: env?.capabilities, calls });
  return outcome;
}

/** Whether every hook an object declares is a test hook (those are dropped). */
export function isTestHook(object: KubeJson): boolean {
  const annotations = metadataOf(object).annotations;
  const hooks =
    isRecord(annotations) && typeof annotations["helm.sh/hook"] === "string"
      ? annotations["helm.sh/hook"].split(",").map((h) => h.trim())
      : [];
  return hooks.length > 0 && hooks.every((h) => TEST_HOOKS.has(h));
}

/** One chart template's output parsed, as renderChartTemplate would (for a worker to do it off the main thread). */
export function parseChartOutput(template: string, text: string): ParsedTemplate {
  const outcome = parseManifestStream(`template "${template}"`, text);
  return outcome.ok ? outcome : { ok: false, error: outcome.error ?? "the template did not parse" };
}

/** Splits a rendered stream into documents and parses each; empty (or comment-only) documents are skipped. */
export function parseManifestStream(owner: string, text: string): Outcome<KubeJson[]> {
  const objects: KubeJson[] = [];
  for (const [i, doc] of text.split(SEPARATOR).entries()) {
    if (doc.trim() === "") continue;
    const parsed = parseRenderedBody(`${owner} document ${i + 1}`, doc);
    if (!parsed.ok) return parsed;
    if (Object.keys(parsed.value).length > 0) objects.push(parsed.value);
  }
  return { ok: true, value: objects };
}

/** Every object one chart template renders for `instance` (all kinds, test hooks included). */
export function renderChartTemplate(
  helm: HelmContext,
  template: string,
  instance: KubeJson,
  env?: HelmRenderEnv,
): Outcome<readonly KubeJson[]> & { readonly failedTemplate?: string } {
  const output = chartOutput(helm, instance, env);
  // By the outputs themselves where the render succeeded: a render kept elsewhere (the controller's
  // worker answers, kept by what the render reads) comes back as the same outputs for every
  // version of the instance — a status write must not parse megabytes of CRDs again.
  const memoKey = output.ok ? output.value : output;
  let perInstance = parsed.get(memoKey);
  if (perInstance === undefined) {
    perInstance = new Map();
    parsed.set(memoKey, perInstance);
  }
  const cached = perInstance.get(template);
  if (cached) return cached;
  let outcome: Outcome<readonly KubeJson[]> & { readonly failedTemplate?: string };
  if (!output.ok) outcome = output;
  else {
    const text = output.value.get(template);
    // No output: a helper, or a template of a subchart its condition disables (it renders nothing).
    outcome = text === undefined ? { ok: true, value: [] } : parseChartOutput(template, text);
  }
  perInstance.set(template, outcome);
  return outcome;
}

/** The ids of the children that render a template: a failed render is told as theirs. */
export type TemplateOwners = (template: string) => readonly string[];

/** The objects of `node`'s kind that its template renders for `instance` and that this generation applies (hook-runs.ts). */
export function renderManifests(
  helm: HelmContext,
  node: CompiledNode,
  instance: KubeJson,
  env?: HelmRenderEnv,
  owners?: TemplateOwners,
): Outcome<readonly KubeJson[]> {
  const all = ownObjects(helm, node, instance, env, owners);
  return all.ok ? { ok: true, value: hookRuns(all.value, instance).apply } : all;
}

/** Hook objects of `node` that this generation keeps without applying them (hook-runs.ts). */
export function retainedManifests(
  helm: HelmContext,
  node: CompiledNode,
  instance: KubeJson,
  env?: HelmRenderEnv,
): readonly KubeJson[] {
  const all = ownObjects(helm, node, instance, env);
  return all.ok ? hookRuns(all.value, instance).retain : [];
}

/**
 * Who a failed chart render is told as: the whole chart renders as one, so every manifests child
 * fails with it, but the error names the child (or, without one, the template) whose template
 * failed — not whichever child happened to be evaluated first.
 */
function failedAs(node: CompiledNode, own: string, failed: string | undefined, owners?: TemplateOwners): string {
  if (failed === undefined || failed === own) return `child "${node.id}"`;
  const ids = owners?.(failed) ?? [];
  if (ids.length === 0) return `template "${failed}"`;
  return ids.length === 1 ? `child "${ids[0] ?? ""}"` : `children ${ids.map((id) => `"${id}"`).join(", ")}`;
}

function ownObjects(
  helm: HelmContext,
  node: CompiledNode,
  instance: KubeJson,
  env?: HelmRenderEnv,
  owners?: TemplateOwners,
): Outcome<readonly KubeJson[]> {
  const manifests = node.templateSource?.manifests;
  if (manifests === undefined) return { ok: false, error: `internal: child "${node.id}" is not a manifests child` };
  const stream = renderChartTemplate(helm, manifests.template, instance, env);
  if (!stream.ok)
    return stream.pending !== undefined
      ? stream
      : {
          ok: false,
          error: `${failedAs(node, manifests.template, stream.failedTemplate, owners)}: ${stream.error}`,
        };
  const own = groupKind(node.apiVersion, node.kind);
  const out: KubeJson[] = [];
  for (const object of stream.value) {
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string") {
      return {
        ok: false,
        error: `child "${node.id}": template "${manifests.template}" rendered an object without apiVersion or kind`,
      };
    }
    if (isTestHook(object)) continue;
    const key = groupKind(object.apiVersion, object.kind);
    if (key === own) out.push(object);
    else if (!manifests.templateKinds.includes(key)) {
      return {
        ok: false,
        error: `child "${node.id}": template "${manifests.template}" rendered a ${object.kind} (${object.apiVersion}), a kind no child of this template owns; add a child with manifests: ${manifests.template}, apiVersion: ${object.apiVersion}, kind: ${object.kind} (re-running kro import helm does)`,
      };
    }
  }
  return { ok: true, value: out };
}
