/**
 * compileRgd for the template dialect (docs/reference/seed-dialect.md): `spec.resourceKind` names
 * the user's existing CRD, `spec.childResources` hold Go templates, `spec.statusMappings` copy
 * child state onto the parent. Produces the same CompiledGraph model as the CEL dialect (dialect
 * "template", no generated CRD); every problem is an issue with a path, template syntax errors
 * also with the line/column inside the template.
 */
import { error, hasErrors, innerError, type Issue } from "../../diag/index.js";
import { deepFreeze, type CompiledNode, type InstanceKind, type TemplateCompiledGraph } from "../compiled-graph.js";
import type { CompileResult } from "../cel/index.js";
import { applyWaves, formatCycle, topologicalOrder } from "../dag.js";
import { isRecord } from "../is-record.js";
import { checkKind } from "../naming.js";
import type { SchemaResolver } from "../schema-resolver.js";
import { draftChild, type DraftChild } from "./template-child.js";
import { checkParentReads } from "./template-parent-check.js";
import { lookupOrderIssues, chartOfTemplate, compileHelmContext, type HelmContext } from "../helm/index.js";
import type { ParsedSource } from "./template-parse.js";
import { compileStatusMappings } from "./template-status.js";

export interface TemplateCompileOptions {
  readonly resolver?: SchemaResolver;
}

const GROUP = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const VERSION = /^v[0-9]+((alpha|beta)[0-9]+)?$/;

function instanceKind(value: unknown, issues: Issue[]): InstanceKind | undefined {
  const path = ["spec", "resourceKind"];
  if (!isRecord(value)) {
    issues.push(
      error(
        "rgd.field-missing",
        path,
        "spec.resourceKind is required: {group, version, kind} of the CRD this RGD attaches to",
      ),
    );
    return undefined;
  }
  const before = issues.length;
  const { group, version, kind } = value;
  if (typeof group !== "string" || !GROUP.test(group))
    issues.push(
      error(
        "rgd.invalid-group",
        [...path, "group"],
        `group must be a DNS subdomain with a dot, such as kro.example.com, got ${JSON.stringify(group)}`,
      ),
    );
  if (typeof version !== "string" || !VERSION.test(version))
    issues.push(
      error(
        "rgd.api-version",
        [...path, "version"],
        `version must look like v1, v1alpha1 or v2beta3, got ${JSON.stringify(version)}`,
      ),
    );
  issues.push(...checkKind(kind, [...path, "kind"]));
  if (issues.length > before || typeof group !== "string" || typeof version !== "string" || typeof kind !== "string")
    return undefined;
  return { group, version, kind };
}

/** Two children may not share an id; the message names both entries. */
function checkUniqueChildIds(children: readonly DraftChild[], issues: Issue[]): void {
  const first = new Map<string, DraftChild>();
  for (const child of children) {
    const earlier = first.get(child.id);
    if (earlier === undefined) {
      first.set(child.id, child);
      continue;
    }
    const hint =
      child.idPath === child.path
        ? ` (the id defaults to the kind with its first letter lower-cased; set id on one of them)`
        : "";
    issues.push(
      error(
        "rgd.id-duplicate",
        child.idPath,
        `duplicate child id "${child.id}": spec.childResources[${earlier.index}] and spec.childResources[${child.index}] both use it${hint}`,
      ),
    );
  }
}

function childSources(child: DraftChild): ParsedSource[] {
  return [child.nameTemplate, child.template, child.condition, ...child.readyWhen].filter(
    (s): s is ParsedSource => s !== undefined,
  );
}

/** `group/Kind` of an apiVersion + kind: what a manifests child owns of its template's output. */
export function groupKind(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf("/");
  return `${slash < 0 ? "" : apiVersion.slice(0, slash)}/${kind}`;
}

/** manifests children: spec.helm must exist and name their template; two children may not own one kind of one template. */
function checkManifests(
  children: readonly DraftChild[],
  helm: HelmContext | undefined,
  helmGiven: boolean,
  issues: Issue[],
): Map<string, string[]> {
  const kindsByTemplate = new Map<string, string[]>();
  for (const child of children) {
    if (child.manifests === undefined) continue;
    const { name, path } = child.manifests;
    if (helm === undefined) {
      if (!helmGiven)
        issues.push(
          error(
            "rgd.field-missing",
            ["spec", "helm"],
            `child "${child.id}" renders the manifests of template "${name}", which needs spec.helm (the chart's templates)`,
          ),
        );
      continue;
    }
    if (!Object.hasOwn(helm.templates, name)) {
      issues.push(
        error("rgd.unknown-template", path, `manifests names "${name}", which is not in spec.helm.templates`),
      );
      continue;
    }
    if (chartOfTemplate(helm, name) === undefined)
      issues.push(
        error(
          "rgd.unknown-template",
          path,
          `template "${name}" belongs to no spec.helm.charts entry (no templatePrefix matches it)`,
        ),
      );
    const kinds = kindsByTemplate.get(name) ?? [];
    const key = groupKind(child.apiVersion, child.kind);
    if (kinds.includes(key))
      issues.push(
        error(
          "rgd.id-duplicate",
          path,
          `two children own the ${child.kind} objects of "${name}"; one child per kind and template`,
        ),
      );
    kindsByTemplate.set(name, [...kinds, key]);
  }
  return kindsByTemplate;
}

/** `.children.<id>` reads and `dependsOn` ids, checked against the known ids; the edges of the graph. */
function dependenciesOf(
  child: DraftChild,
  ids: ReadonlySet<string>,
  issues: Issue[],
): { dependencies: string[]; references: string[] } {
  const dependencies = new Set<string>();
  const references = new Set<string>();
  const known = [...ids].join(", ");
  const sources = childSources(child);
  for (const source of sources) {
    for (const ref of source.children) {
      if (ref.name === child.id)
        issues.push(
          innerError(
            "graph.self-reference",
            source.path,
            { line: ref.line, column: ref.column },
            `child "${child.id}" reads .children.${ref.name}, itself: a child cannot depend on itself`,
          ),
        );
      else if (!ids.has(ref.name))
        issues.push(
          innerError(
            "graph.unknown-child",
            source.path,
            { line: ref.line, column: ref.column },
            `.children.${ref.name} names no child (ids: ${known})`,
          ),
        );
      else {
        dependencies.add(ref.name);
        references.add(ref.name);
      }
    }
  }
  for (const dep of child.dependsOn) {
    if (dep.id === child.id)
      issues.push(error("graph.self-reference", dep.path, `child "${child.id}" cannot depend on itself`));
    else if (!ids.has(dep.id))
      issues.push(
        error("graph.unknown-child", dep.path, `dependsOn names "${dep.id}", which is no child id (ids: ${known})`),
      );
    else dependencies.add(dep.id);
  }
  return { dependencies: [...dependencies], references: [...references] };
}

export function compileTemplateRgd(
  rgd: Record<string, unknown>,
  spec: Record<string, unknown>,
  options: TemplateCompileOptions = {},
): CompileResult {
  const issues: Issue[] = [];
  const instance = instanceKind(spec.resourceKind, issues);
  const list = spec.childResources;
  if (!Array.isArray(list)) {
    issues.push(
      error(
        list === undefined ? "rgd.field-missing" : "rgd.invalid-field",
        ["spec", "childResources"],
        "spec.childResources must be a list of child resources",
      ),
    );
    return { issues };
  }
  const children: DraftChild[] = [];
  list.forEach((entry, index) => {
    const drafted = draftChild(entry, index, options.resolver);
    issues.push(...drafted.issues);
    if (drafted.child) children.push(drafted.child);
  });
  checkUniqueChildIds(children, issues);
  const helm = compileHelmContext(spec.helm, issues);
  const kindsByTemplate = checkManifests(children, helm, spec.helm !== undefined, issues);
  const ids = new Set(children.map((c) => c.id));
  const edges = new Map(children.map((c) => [c.id, dependenciesOf(c, ids, issues)]));
  const dependencies = new Map([...edges].map(([id, e]) => [id, e.dependencies]));
  if (helm?.lookups !== undefined) issues.push(...lookupOrderIssues(children, helm.lookups, dependencies));
  const dag = { ids: [...new Set(children.map((c) => c.id))], dependencies };
  const ordered = topologicalOrder(dag);
  if (!ordered.ok)
    issues.push(
      error("graph.cycle", ["spec", "childResources"], `child resources form a cycle: ${formatCycle(ordered.cycle)}`),
    );
  const statusMappings = compileStatusMappings(spec.statusMappings, children, children.length === list.length, issues);
  if (instance) {
    // The parent's schema is known when its CRD was given (--crd) or read from the cluster.
    const parentSchema = options.resolver?.resolve(`${instance.group}/${instance.version}`, instance.kind)?.schema;
    const sources = children.flatMap(childSources);
    issues.push(...checkParentReads(sources, instance.kind, parentSchema));
  }

  if (hasErrors(issues) || instance === undefined || !ordered.ok) return { issues };
  const waves = applyWaves(dag);
  const nodes: CompiledNode[] = children.map((c) => ({
    id: c.id,
    index: c.index,
    type: c.manifests ? "collection" : "resource",
    apiVersion: c.apiVersion,
    kind: c.kind,
    namespaced: c.namespaced,
    template: c.manifests ? c.manifests.name : (c.template?.text ?? ""),
    fields: [],
    includeWhen: c.condition ? [c.condition.text] : [],
    readyWhen: c.readyWhen.map((r) => r.text),
    forEach: [],
    dependencies: dependencies.get(c.id) ?? [],
    wave: waves.get(c.id) ?? 1,
    templateSource: {
      nameTemplate: c.nameTemplate?.text ?? "",
      dependsOn: c.dependsOn.map((d) => d.id),
      childReferences: edges.get(c.id)?.references ?? [],
      ...(c.manifests
        ? { manifests: { template: c.manifests.name, templateKinds: kindsByTemplate.get(c.manifests.name) ?? [] } }
        : {}),
    },
  }));
  const metadata = isRecord(rgd.metadata) ? rgd.metadata : {};
  const graph: TemplateCompiledGraph = {
    dialect: "template",
    name: typeof metadata.name === "string" ? metadata.name : "",
    instance,
    nodes,
    topologicalOrder: ordered.order,
    status: [],
    conditions: [],
    statusMappings,
    ...(helm === undefined ? {} : { helm }),
  };
  return { graph: deepFreeze(graph), issues };
}
