// template: a faithful Go text/template engine (lexer, parser, executor, Go's built-ins, Sprig's common functions) over JSON-like data.
// Pure and synchronous: no I/O, no timers, no process.env; every failure is a TemplateError with Go's message and a 1-based line/column.
// Its rooms, each entered through its index.ts: go/ (Go's values and libraries) < sprig/ < engine/ (text/template) < helm/.
import {
  ExecContext,
  execute,
  functionTable,
  invalidRegexLiterals,
  mayUseEntropy,
  parseTrees,
  rootFieldReferences,
  TemplateError,
  withEntropy,
  type FieldReference,
  type MissingKey,
  type RegexLiteralProblem,
  type TreeSet,
} from "./engine/index.js";
import { systemEntropy, type Entropy } from "./sprig/index.js";
import { fromJson, type FuncMap, type RenderDeadline } from "./go/index.js";

/** The work budget of a render when the caller names none: as much as a whole Helm chart gets. */
const DEFAULT_MAX_STEPS = 10_000_000;

export { TemplateError, isTemplateError, type TemplateErrorKind } from "./engine/index.js";
export { generateCaAndCertificate, seededEntropy, systemEntropy, type Entropy } from "./sprig/index.js";
export {
  FuncError,
  goFunc,
  WORK_COSTS,
  type RenderDeadline,
  type FuncMap,
  type GoFunction,
  type ParamType,
} from "./go/index.js";
export type { MissingKey, FieldReference, RegexLiteralProblem } from "./engine/index.js";

export interface ParseOptions {
  /** Extra functions (they win over built-ins and Sprig, as Funcs() does in Go); read once per map object, so do not change it afterwards. */
  readonly funcs?: FuncMap;
  /** Include the Sprig functions of the template dialect (default true). */
  readonly sprig?: boolean;
}

export interface Template {
  readonly name: string;
  readonly text: string;
  /** Names of every template the text defines ({{define}}/{{block}}), the main one included. */
  readonly definedTemplates: readonly string[];
  readonly trees: TreeSet;
  readonly funcs: FuncMap;
}

export interface RenderOptions {
  /** Go's Option("missingkey=…"): "default" prints <no value>, "zero" likewise for interface maps, "error" fails. */
  readonly missingKey?: MissingKey;
  /** How integral JSON numbers behave: as Go int64 (the dialect's rule, default) or float64 (encoding/json). */
  readonly integers?: "int64" | "float64";
  /**
   * Work budget: executor steps plus what functions charge for the work and memory they cause
   * (default 10,000,000, as a whole Helm chart's), and output length (default 4 MiB of UTF-16 units).
   */
  readonly maxSteps?: number;
  readonly maxOutputLength?: number;
  /** A wall-clock limit (the caller's clock): checked every 256 steps and at every charge of work. */
  readonly deadline?: RenderDeadline;
  /** Render a {{define}}d template instead of the main one (Go's ExecuteTemplate). */
  readonly templateName?: string;
  /** Where random and time functions draw from (default: the system's randomness and clock). */
  readonly entropy?: Entropy;
}

/** Parses `text` as template `name`; throws TemplateError (kind "parse") with Go's message. */
export function parseTemplate(name: string, text: string, options: ParseOptions = {}): Template {
  const funcs = functionTable(options.sprig ?? true, options.funcs);
  let trees: TreeSet;
  try {
    trees = parseTrees(name, text, (f) => Object.hasOwn(funcs, f));
  } catch (e) {
    if (e instanceof RangeError)
      throw new TemplateError("parse", `template: ${name}: template nests too deeply to parse`, 1, 1);
    throw e;
  }
  return { name, text, definedTemplates: [...trees.keys()].sort(), trees, funcs };
}

const usesEntropy = new WeakMap<Template, boolean>();

/** Executes a parsed template with JSON-like data; throws TemplateError (kind "exec" or "budget"). */
export function renderTemplate(template: Template, data: unknown, options: RenderOptions = {}): string {
  const name = options.templateName ?? template.name;
  const tree = template.trees.get(name);
  if (tree === undefined) {
    const message =
      options.templateName === undefined
        ? `template: ${name}: ${JSON.stringify(name)} is an incomplete or empty template`
        : `template: no template ${JSON.stringify(name)} associated with template ${JSON.stringify(template.name)}`;
    throw new TemplateError("exec", message, 1, 1);
  }
  // A fresh table per render even for the system source (key generation is budgeted per render),
  // for templates that may call a random or time function; the others keep the shared table.
  let uses = usesEntropy.get(template);
  if (uses === undefined) {
    uses = mayUseEntropy(template.text);
    usesEntropy.set(template, uses);
  }
  const funcs = uses ? withEntropy(template.funcs, options.entropy ?? systemEntropy) : template.funcs;
  const ctx = new ExecContext(template.text, template.name, template.trees, funcs, {
    missingKey: options.missingKey ?? "default",
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    maxOutputLength: options.maxOutputLength ?? 4 * 1024 * 1024,
    deadline: options.deadline,
  });
  const root = fromJson(data, options.integers ?? "int64");
  try {
    return execute(ctx, name, tree.root, root === null ? undefined : root);
  } catch (e) {
    if (e instanceof RangeError)
      throw new TemplateError("budget", `template: ${name}: execution nests too deeply`, 1, 1);
    throw e;
  }
}

/**
 * Where the template reads `.<head>.<name>` from its root data (`.children.service.spec`,
 * `$.children.service`, `index .children "service"`), in source order. Static: nothing runs.
 */
export function fieldReferences(template: Template, head: string): FieldReference[] {
  return rootFieldReferences(template.text, template.trees, template.name, head);
}

/** Literal patterns of `regexMatch`/`regexReplaceAll` that RE2 rejects, with their positions. */
export function regexLiteralProblems(template: Template): RegexLiteralProblem[] {
  return invalidRegexLiterals(template.text, template.trees);
}

// A set of templates shared across files, and Helm's engine on top of it.
export {
  addTemplate,
  cloneTemplateSet,
  createTemplateSet,
  executeTemplate,
  parseTemplateSet,
  type SetExecuteOptions,
  type SetParseOptions,
  type TemplateSet,
  type TemplateSource,
} from "./engine/index.js";
export {
  helmParseOrder,
  renderHelmTemplates,
  type HelmLookup,
  type HelmRenderOptions,
  type HelmTemplate,
} from "./helm/index.js";
export { helmChartTemplates, type HelmChartInput, type HelmReleaseInput } from "./helm/index.js";
export {
  globToRegExp,
  helmCapabilities,
  helmChart,
  helmFiles,
  parseKubeVersion,
  type HelmCapabilitiesInput,
} from "./helm/index.js";
export { GoObject, type GoObjectKind, type GoObjectSpec } from "./go/index.js";
export { helmFuncs } from "./helm/index.js";
