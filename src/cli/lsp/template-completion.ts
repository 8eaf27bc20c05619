/**
 * Completion inside a template-dialect `{{…}}`: after a `.` at the start of a chain, the data a
 * template is given (`parent`, `children`, and `self` in a readyWhen); after `.parent.`, the parent
 * kind's fields from its CRD (never `status`: templates are given the parent without it); after
 * `.children.`, the child ids, then that child's kind's fields; a bare word, the template
 * functions (Go's built-ins, Sprig's and Helm's).
 */
import { CompletionItemKind, MarkupKind, type CompletionItem } from "vscode-languageserver/node";
import type { OpenApiSchema } from "../../expr/index.js";
import { HELM_FUNCTION_NAMES, schemaAt } from "../../graph/index.js";
import { describeType, kindSchema } from "./field-schemas.js";
import type { RgdScope } from "./rgd-scope.js";

/** text/template's own functions. */
const GO_BUILTINS = [
  "and",
  "call",
  "eq",
  "ge",
  "gt",
  "html",
  "index",
  "js",
  "le",
  "len",
  "lt",
  "ne",
  "not",
  "or",
  "print",
  "printf",
  "println",
  "slice",
  "urlquery",
];

export interface TemplateCompletionContext {
  /** Field names selected so far from the data (`.parent.spec.` → ["parent", "spec"]); undefined for a bare word. */
  readonly chain?: readonly string[];
  readonly typed: string;
}

/** The chain at the end of `linePrefix` when it ends inside an open `{{`. */
export function templateCompletionContext(linePrefix: string): TemplateCompletionContext | undefined {
  const open = linePrefix.lastIndexOf("{{");
  if (open < 0 || linePrefix.indexOf("}}", open) >= 0) return undefined;
  const inside = ` ${linePrefix.slice(open + 2)}`;
  const field = /[\s(|]\$?((?:\.[A-Za-z_]\w*)*)\.(\w*)$/.exec(inside);
  if (field !== null) return { chain: (field[1] ?? "").split(".").filter((s) => s !== ""), typed: field[2] ?? "" };
  const word = /[\s(|]([A-Za-z_]\w*)?$/.exec(inside);
  return word === null ? undefined : { typed: word[1] ?? "" };
}

function fieldItems(schema: OpenApiSchema | undefined, without: readonly string[] = []): CompletionItem[] {
  return Object.entries(schema?.properties ?? {})
    .filter(([name]) => !without.includes(name))
    .map(([name, property]) => ({
      label: name,
      kind: CompletionItemKind.Field,
      detail: describeType(property),
      ...(property.description === undefined
        ? {}
        : { documentation: { kind: MarkupKind.PlainText, value: property.description } }),
    }));
}

/** The parent as templates see it: its CRD's schema, with ObjectMeta where the CRD leaves metadata open. */
function parentSchema(scope: RgdScope): OpenApiSchema | undefined {
  const schema = kindSchema(scope.resolver, scope.rgd.parent);
  if (schema === undefined) return undefined;
  const metadata = scope.resolver.resolve("v1", "ConfigMap")?.schema.properties?.metadata;
  return { ...schema, properties: { ...schema.properties, ...(metadata === undefined ? {} : { metadata }) } };
}

function rootItems(scope: RgdScope, offset: number): CompletionItem[] {
  const self = scope.rgd.resources.find(
    (r) => r.readyWhen !== undefined && r.readyWhen.start <= offset && offset <= r.readyWhen.end,
  );
  return [
    { label: "parent", kind: CompletionItemKind.Variable, detail: "the instance, without its status" },
    { label: "children", kind: CompletionItemKind.Variable, detail: "the observed children, by id" },
    ...(self === undefined
      ? []
      : [{ label: "self", kind: CompletionItemKind.Variable, detail: `this child as observed (${self.kind ?? "?"})` }]),
  ];
}

/** The items for the cursor at `offset`, the end of `linePrefix`; undefined outside `{{…}}`. */
export function templateCompletionItems(
  scope: RgdScope,
  linePrefix: string,
  offset: number,
): CompletionItem[] | undefined {
  const context = templateCompletionContext(linePrefix);
  if (context === undefined) return undefined;
  const { chain } = context;
  if (chain === undefined)
    return [...GO_BUILTINS, ...HELM_FUNCTION_NAMES].map((name) => ({ label: name, kind: CompletionItemKind.Function }));
  const [head, ...rest] = chain;
  if (head === undefined) return rootItems(scope, offset);
  if (head === "children" && rest.length === 0)
    return scope.rgd.resources.map((r) => ({
      label: r.id,
      kind: CompletionItemKind.Variable,
      detail: `${r.kind ?? "?"} (${r.apiVersion ?? "?"})`,
    }));
  return fieldItems(
    templateChainSchema(scope, chain, offset),
    head === "parent" && rest.length === 0 ? ["status"] : [],
  );
}

/** The schema of what a chain of the template's data selects (`.parent.spec.image`, `.children.svc.spec`, `.self.status`). */
export function templateChainSchema(
  scope: RgdScope,
  chain: readonly string[],
  offset: number,
): OpenApiSchema | undefined {
  const [head, ...rest] = chain;
  if (head === "parent") return schemaAt(parentSchema(scope), rest);
  if (head === "children") {
    const [id, ...fields] = rest;
    return schemaAt(
      kindSchema(
        scope.resolver,
        scope.rgd.resources.find((r) => r.id === id),
      ),
      fields,
    );
  }
  if (head === "self") {
    const child = scope.rgd.resources.find((r) => r.extent.start <= offset && offset <= r.extent.end);
    return schemaAt(kindSchema(scope.resolver, child), rest);
  }
  return undefined;
}
