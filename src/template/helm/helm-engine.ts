/**
 * Helm 3's rendering engine (helm.sh/helm/v3/pkg/engine, engine.go) over our text/template:
 * every template of a chart and its subcharts parsed into one set (deeper paths first, so a
 * parent's `define` wins), each non-partial file executed with its chart's data and
 * `.Template.Name`/`.BasePath`, missingkey=zero with "<no value>" blanked, and Helm's own
 * `include` (recursion capped per name at 1000), `tpl`, `required`, `fail`, `lookup` (a port)
 * and `getHostByName` (DNS off: ""). Error texts are Helm's, cleaned as Helm cleans them.
 */
import { entropyFuncs, systemEntropy, type Entropy } from "../sprig/index.js";
import {
  addTemplate,
  cloneTemplateSet,
  createTemplateSet,
  executeTree,
  TemplateError,
  type Budget,
  type TemplateSet,
} from "../engine/index.js";
import {
  chargeParse,
  chargeWork,
  fromJson,
  FuncError,
  goFunc,
  goQuote,
  isMap,
  WORK_COSTS,
  type FuncMap,
  type RenderDeadline,
  type GoMap,
  type GoValue,
} from "../go/index.js";
import { helmFuncs } from "./helm-funcs.js";

/** One template file of a chart, named as Helm names it. */
export interface HelmTemplate {
  /** "<chart>/templates/x.yaml"; a subchart's: "<parent>/charts/<sub>/templates/x.yaml". */
  readonly name: string;
  readonly text: string;
  /**
   * The chart's top-level data (Values, Release, Chart, Capabilities, Files, Subcharts): JSON
   * values (numbers are float64, as YAML values are in Helm) and the objects of helm-objects.ts.
   * Files of one chart share one data object, as in Helm (so `set` on .Values is seen by later files).
   */
  readonly data: Record<string, unknown>;
  /** "<chart>/templates": `.Template.BasePath`. */
  readonly basePath: string;
}

/** Helm's `lookup`: the object (or a List for name ""), {} when absent; throw to fail the render. */
export type HelmLookup = (apiVersion: string, kind: string, namespace: string, name: string) => Record<string, unknown>;

export interface HelmRenderOptions {
  /** `helm template --strict`: missingkey=error. */
  readonly strict?: boolean;
  /** Offline Helm returns {} for every lookup; pass a port to read a cluster. */
  readonly lookup?: HelmLookup;
  /**
   * Where random and time functions draw from; each template file gets its own stream
   * (`entropy.fork(file)`), shared by what it includes. Default: the system's (Helm's behaviour).
   */
  readonly entropy?: Entropy;
  /** Work budget for the whole render (default 10,000,000 steps) and per file output (4 MiB). */
  readonly maxSteps?: number;
  readonly maxOutputLength?: number;
  /** A wall-clock limit for the whole render (see RenderOptions.deadline). */
  readonly deadline?: RenderDeadline;
}

const ROOT = "gotpl";
const RECURSION_MAX = 1000;
const WARN = /HELM_ERR_START([\s\S]*)HELM_ERR_END/;
const warnWrap = (s: string): string => `HELM_ERR_START${s}HELM_ERR_END`;

/** Helm's parse order: more path segments first; equal depth in reverse lexical order. */
export function helmParseOrder(names: readonly string[]): string[] {
  const depth = (s: string): number => s.split("/").length;
  return [...names].sort((a, b) => depth(b) - depth(a) || (a < b ? 1 : a > b ? -1 : 0));
}

const isPartial = (name: string): boolean => name.slice(name.lastIndexOf("/") + 1).startsWith("_");

interface RenderState {
  readonly options: HelmRenderOptions;
  readonly budget: Budget;
  readonly includedNames: Map<string, number>;
}

/**
 * include/tpl/required/fail/lookup bound to one set, as Helm's initFunMap binds them, over
 * `file`'s random and time functions (so what a file includes draws from the file's stream).
 */
function boundFuncs(set: TemplateSet, state: RenderState, file: FuncMap): FuncMap {
  const missingKey = state.options.strict === true ? "error" : "zero";
  const exec = {
    missingKey,
    maxSteps: state.options.maxSteps ?? 10_000_000,
    maxOutputLength: state.options.maxOutputLength ?? 4 * 1024 * 1024,
    budget: state.budget,
    deadline: state.options.deadline,
  } as const;
  const funcs: Record<string, FuncMap[string]> = { ...file };
  funcs.include = goFunc(["string", "any"], (name: string, data: GoValue) => {
    const count = state.includedNames.get(name);
    if (count !== undefined && count > RECURSION_MAX)
      throw new FuncError(`rendering template has a nested reference name: ${name}: unable to execute template`);
    state.includedNames.set(name, (count ?? 0) + 1);
    try {
      return executeTree(set, name, undefined, data, { ...exec, funcs });
    } catch (e) {
      if (e instanceof TemplateError && e.kind === "exec") throw new FuncError(e.message, e);
      throw e;
    } finally {
      state.includedNames.set(name, (state.includedNames.get(name) ?? 1) - 1);
    }
  });
  funcs.tpl = goFunc(["string", "any"], (text: string, data: GoValue) => {
    // Parsing the text, and the copy of the set every tpl makes (recursion multiplies both).
    chargeParse(text, "tpl");
    chargeWork(set.trees.size * WORK_COSTS.element, "tpl's copy of the template set");
    const clone = cloneTemplateSet(set);
    let tree;
    try {
      tree = addTemplate(clone, ROOT, text);
    } catch (e) {
      if (e instanceof TemplateError) throw new FuncError(`cannot parse template ${goQuote(text)}: ${e.message}`);
      throw e;
    }
    try {
      const out = executeTree(clone, ROOT, tree, data, { ...exec, funcs: boundFuncs(clone, state, file) });
      return out.replaceAll("<no value>", "");
    } catch (e) {
      if (e instanceof TemplateError && e.kind === "exec")
        throw new FuncError(`error during tpl function execution for ${goQuote(text)}: ${e.message}`);
      throw e;
    }
  });
  funcs.required = goFunc(["string", "any"], (warn: string, v: GoValue) => {
    if (v === null || v === "") throw new FuncError(warnWrap(warn));
    return v;
  });
  funcs.fail = goFunc(["string"], (msg: string) => {
    throw new FuncError(warnWrap(msg));
  });
  const lookup = state.options.lookup;
  funcs.lookup = goFunc(
    ["string", "string", "string", "string"],
    (apiVersion: string, kind: string, namespace: string, name: string) => {
      if (lookup === undefined) return {};
      let found: unknown;
      try {
        found = lookup(apiVersion, kind, namespace, name);
      } catch (e) {
        throw new FuncError(e instanceof Error ? e.message : String(e));
      }
      const v = fromJson(found, "float64");
      return isMap(v) ? v : {};
    },
  );
  funcs.getHostByName = goFunc(["string"], () => "");
  return funcs;
}

/** Helm's cleanupParseError: "parse error at (file:line): message". */
function cleanParseError(e: TemplateError, file: string): TemplateError {
  const tokens = e.message.split(": ");
  const message =
    tokens.length === 1
      ? `parse error in (${file}): ${e.message}`
      : `parse error at (${tokens[1] ?? ""}): ${tokens[tokens.length - 1] ?? ""}`;
  return new TemplateError("parse", message, e.line, e.column, e.file ?? file);
}

/** Helm's cleanupExecError: required/fail messages become "execution error at (file:line:col): msg". */
function cleanExecError(e: TemplateError, file: string): TemplateError {
  if (e.kind !== "exec") return e;
  const first = e.message.indexOf(": ");
  const second = first < 0 ? -1 : e.message.indexOf(": ", first + 2);
  if (second < 0)
    return new TemplateError("exec", `execution error in (${file}): ${e.message}`, e.line, e.column, e.file);
  const location = e.message.slice(first + 2, second);
  const warn = WARN.exec(e.message.slice(second + 2));
  if (warn !== null)
    return new TemplateError("exec", `execution error at (${location}): ${warn[1] ?? ""}`, e.line, e.column, e.file);
  return e;
}

/** The error as the render of top-level template `name` raised it (TemplateError.template). */
const inTemplate = (e: TemplateError, name: string): TemplateError =>
  Object.assign(new TemplateError(e.kind, e.message, e.line, e.column, e.file), { template: name });

/**
 * Renders a chart's templates as Helm's engine.Render does; returns every non-partial file's
 * output by name (NOTES.txt included, as Helm returns it). Throws TemplateError with Helm's
 * message; `file`, `line` and `column` locate the failing action.
 */
export function renderHelmTemplates(
  templates: readonly HelmTemplate[],
  options: HelmRenderOptions = {},
): Map<string, string> {
  const set = createTemplateSet(ROOT, { funcs: helmFuncs });
  const byName = new Map(templates.map((t) => [t.name, t]));
  const order = helmParseOrder([...byName.keys()]);
  for (const name of order) {
    try {
      addTemplate(set, name, byName.get(name)?.text ?? "");
    } catch (e) {
      throw e instanceof TemplateError ? inTemplate(cleanParseError(e, name), name) : e;
    }
  }
  const state: RenderState = { options, budget: { steps: 0 }, includedNames: new Map() };
  const converted = new Map<Record<string, unknown>, GoMap>();
  const rendered = new Map<string, string>();
  for (const name of order) {
    const t = byName.get(name);
    if (t === undefined || isPartial(name)) continue;
    let data = converted.get(t.data);
    if (data === undefined) {
      data = fromJson(t.data, "float64") as GoMap;
      converted.set(t.data, data);
    }
    data.Template = { Name: name, BasePath: t.basePath };
    const funcs = boundFuncs(set, state, entropyFuncs((options.entropy ?? systemEntropy).fork(name)));
    try {
      const out = executeTree(set, name, undefined, data, {
        missingKey: options.strict === true ? "error" : "zero",
        maxSteps: options.maxSteps ?? 10_000_000,
        maxOutputLength: options.maxOutputLength ?? 4 * 1024 * 1024,
        budget: state.budget,
        deadline: options.deadline,
        funcs,
      });
      rendered.set(name, out.replaceAll("<no value>", ""));
    } catch (e) {
      throw e instanceof TemplateError ? inTemplate(cleanExecError(e, name), name) : e;
    }
  }
  return new Map([...rendered].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
