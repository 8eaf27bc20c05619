/**
 * Helm's `lookup` in a chart's templates, as far as the text tells (helm-import.md, "lookup"):
 * every call whose apiVersion and kind are string literals is a *declared* lookup — the only
 * kinds the controller will read for the chart (anything else, e.g. a kind built from values or
 * smuggled in through `tpl`, is refused at runtime) and the kinds the instance-author policy
 * asks get/list for. A looking-up template's children are also ordered after the children of
 * other templates that create that kind, so a lookup of a sibling's object reads it instead of
 * reading `{}` and churning once it appears.
 */
import { warning, type Issue } from "../../diag/index.js";
import { findCycle } from "../dag.js";

/** One `lookup "apiVersion" "Kind" ns name` call with literal apiVersion and kind. */
export interface HelmLookupSite {
  /** The template (Helm's name, helpers included) the call is written in. */
  readonly template: string;
  /** 1-based line of the call inside the template. */
  readonly line: number;
  readonly apiVersion: string;
  readonly kind: string;
  /** The namespace and name arguments as written (a literal keeps its quotes; absent when not found). */
  readonly namespace?: string;
  readonly name?: string;
}

const STRING = String.raw`"(?:[^"\\\n]|\\.)*"|` + "`[^`]*`";
const ARG = String.raw`(?:"(?:[^"\\\n]|\\.)*"|` + "`[^`]*`" + String.raw`|\([^()]*\)|[^\s()}|]+)`;
// `lookup` as a function name (not `.Values.lookup`, `$lookup` or `lookupX`), literal apiVersion and kind.
const CALL = new RegExp(
  String.raw`(?<![\w.$-])lookup\s+(${STRING})\s+(${STRING})(?:\s+(${ARG}))?(?:\s+(${ARG}))?`,
  "g",
);

function unquote(literal: string): string {
  if (literal.startsWith("`")) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal.slice(1, -1);
  }
}

/** Every lookup call with literal apiVersion and kind, in template-name order then text order. */
export function helmLookupSites(templates: Readonly<Record<string, string>>): HelmLookupSite[] {
  const sites: HelmLookupSite[] = [];
  for (const name of Object.keys(templates).sort()) {
    const text = templates[name] ?? "";
    if (!text.includes("lookup")) continue;
    for (const match of text.matchAll(CALL)) {
      const [, apiVersion = "", kind = "", namespace, objectName] = match;
      const line = text.slice(0, match.index).split("\n").length;
      sites.push({
        template: name,
        line,
        apiVersion: unquote(apiVersion),
        kind: unquote(kind),
        ...(namespace === undefined ? {} : { namespace }),
        ...(objectName === undefined ? {} : { name: objectName }),
      });
    }
  }
  return sites;
}

/** Whether `apiVersion`/`kind` is a declared lookup of the chart (exact apiVersion, as Helm resolves it). */
export function isDeclaredLookup(sites: readonly HelmLookupSite[], apiVersion: string, kind: string): boolean {
  return sites.some((s) => s.apiVersion === apiVersion && s.kind === kind);
}

interface EdgeChild {
  readonly id: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly manifests?: { readonly name: string };
}

const groupOf = (apiVersion: string): string =>
  apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";

/**
 * Adds, to `dependencies`, an edge from every child of a template that looks a kind up to every
 * child of *another* template that owns that kind (same group and kind; the name is not known
 * before rendering, so the edge is by kind). Lookups written in helpers (`_*.tpl`) add none:
 * which template includes them is not known from the text. An edge that would close a cycle
 * (the install order already puts the other child after this one) is left out and reported.
 */
export function addLookupEdges(
  children: readonly EdgeChild[],
  sites: readonly HelmLookupSite[],
  dependencies: Map<string, string[]>,
): { skipped: string[] } {
  const skipped: string[] = [];
  const ids = children.map((c) => c.id);
  for (const site of sites) {
    const lookers = children.filter((c) => c.manifests?.name === site.template);
    const makers = children.filter(
      (c) =>
        c.manifests !== undefined &&
        c.manifests.name !== site.template &&
        c.kind === site.kind &&
        groupOf(c.apiVersion) === groupOf(site.apiVersion),
    );
    for (const looker of lookers) {
      for (const maker of makers) {
        const deps = dependencies.get(looker.id) ?? [];
        if (deps.includes(maker.id)) continue;
        dependencies.set(looker.id, [...deps, maker.id]);
        if (findCycle({ ids, dependencies }) !== undefined) {
          dependencies.set(looker.id, deps);
          skipped.push(`${looker.id} -> ${maker.id}`);
        }
      }
    }
  }
  return { skipped };
}

/** addLookupEdges for the compiler: an edge left out (it would close a cycle) is a warning naming both children. */
export function lookupOrderIssues(
  children: readonly EdgeChild[],
  sites: readonly HelmLookupSite[],
  dependencies: Map<string, string[]>,
): Issue[] {
  const { skipped } = addLookupEdges(children, sites, dependencies);
  return skipped.map((edge) =>
    warning(
      "graph.lookup-order",
      ["spec", "helm", "templates"],
      `a lookup orders ${edge} (it reads a kind the other creates), but that would close a cycle with the other dependencies: left out, the lookup may read {} until the object exists`,
    ),
  );
}
