/**
 * How a chart's templates run (template-dialect.md §9): every template file of a chart and its
 * subcharts in one set, as Helm's engine parses them, so `define`s are shared and `include`/`tpl`
 * reach them. The output's `<no value>` becomes "" as in Helm's engine.
 *
 * The set and `include`/`tpl` are built here on the engine's public API; once src/template
 * exposes Helm's engine functions itself (helm-engine's work), this file shrinks to a call.
 */
import { HELM_FUNCTION_NAMES } from "../../graph/index.js";
import { FuncError, goFunc, parseTemplate, renderTemplate, TemplateError, type FuncMap, type Template } from "../../template/index.js";

/** Helm's limit on nested include/tpl calls. */
const MAX_INCLUDE_DEPTH = 1000;

export interface ChartTemplateSet {
  /** Executes template file `name` (its main tree) with `data`; throws TemplateError. */
  render(name: string, data: unknown): string;
}

function truncate(count: { value: bigint }, s: string): string {
  const c = Number(count.value);
  if (c < 0 && s.length + c > 0) return s.slice(s.length + c);
  if (c >= 0 && s.length > c) return s.slice(0, c);
  return s;
}

const sets = new WeakMap<object, ChartTemplateSet>();

/** Functions Helm adds (or charts need) that the engine may lack; the engine's own win when it has them. */
function helmFunctions(set: () => Template, depth: { value: number }): FuncMap {
  const nested = <T>(what: string, run: () => T): T => {
    if (++depth.value > MAX_INCLUDE_DEPTH) {
      depth.value = 0;
      throw new TemplateError("exec", `rendering template has a nested reference name: ${what}: exceeded max template depth`, 1, 1);
    }
    try {
      return run();
    } finally {
      depth.value--;
    }
  };
  return {
    include: goFunc(["string", "any"], (name: string, data: unknown) => nested(name, () => renderTemplate(set(), data, { templateName: name, integers: "float64" }))),
    tpl: goFunc(["string", "any"], (text: string, data: unknown) => nested("tpl", () => {
      const base = set();
      const parsed = parseTemplate("tpl", text, { funcs: base.funcs });
      const trees = new Map(base.trees);
      for (const [name, tree] of parsed.trees) trees.set(name, tree);
      return renderTemplate({ ...parsed, trees }, data, { integers: "float64" });
    })),
    trunc: goFunc(["int", "string"], truncate),
  };
}

/** Parses every template of `templates` into one set (cached per frozen templates object). */
export function chartTemplateSet(templates: Readonly<Record<string, string>>): ChartTemplateSet {
  const cached = sets.get(templates);
  if (cached) return cached;
  const depth = { value: 0 };
  // include/tpl need the whole set, which exists only once every file is parsed with them.
  const holder: { whole?: Template } = {};
  const own = helmFunctions(() => {
    if (holder.whole === undefined) throw new Error("internal: template set used before it was built");
    return holder.whole;
  }, depth);
  const engine = parseTemplate("functions", "").funcs;
  const funcs: Record<string, FuncMap[string]> = {};
  for (const name of HELM_FUNCTION_NAMES) {
    if (Object.hasOwn(engine, name)) continue;
    funcs[name] = own[name] ?? goFunc([], () => {
      throw new FuncError(`${name} is not supported by kro-ts yet`);
    }, "any");
  }
  const parsed = new Map<string, Template>();
  const trees: Template["trees"] = new Map();
  // Helm parses helpers and manifests alike; later definitions of one name win (sorted by name here).
  for (const name of Object.keys(templates).sort()) {
    const template = parseTemplate(name, templates[name] ?? "", { funcs });
    parsed.set(name, template);
    for (const [treeName, tree] of template.trees) trees.set(treeName, tree);
  }
  const [first] = parsed.values();
  const whole: Template = { ...(first ?? parseTemplate("empty", "", { funcs })), trees };
  holder.whole = whole;
  const set: ChartTemplateSet = {
    render(name, data) {
      const file = parsed.get(name);
      if (file === undefined) throw new TemplateError("exec", `template: no template ${JSON.stringify(name)} in the chart`, 1, 1);
      depth.value = 0;
      // Positions in messages refer to the file being rendered.
      const out = renderTemplate({ ...whole, name: file.name, text: file.text }, data, { templateName: name, integers: "float64" });
      return out.replaceAll("<no value>", "");
    },
  };
  sets.set(templates, set);
  return set;
}
