/**
 * Hover: what the name under the cursor is. Inside `${…}`, a resource id says its kind, `schema`
 * the instance, a forEach variable its item type, a field of a chain its type and the schema's
 * description, a called function its signatures, and anywhere else in it (`${`, an operator, a
 * literal) the CEL type of the whole expression; on a key of a resource's template, the field of
 * that kind (type and description) from the same schemas completion reads (field-schemas.ts).
 * Nothing where no schema is known.
 */
import { MarkupKind, type Hover } from "vscode-languageserver/node";
import { schemaAt } from "../../graph/index.js";
import type { OpenApiSchema } from "../../expr/index.js";
import type { SourceSpan } from "../../api/index.js";
import type { CelFunctionCatalog } from "./cel-functions.js";
import { completionContext } from "./completion-context.js";
import { templateChainSchema, templateCompletionContext } from "./template-completion.js";
import { expressionType } from "./expression-type.js";
import { chainSchema, describeType, localsAt, type LocalNames } from "./field-schemas.js";
import type { ExpressionSite } from "./expression-sites.js";
import type { RgdScope } from "./rgd-scope.js";

export interface HoverAnswer {
  readonly markdown: string;
  readonly span: SourceSpan;
}

function fieldText(name: string, schema: OpenApiSchema): string {
  const description = schema.description?.trim();
  return `**${name}** \`${describeType(schema)}\`${description === undefined || description === "" ? "" : `\n\n${description}`}`;
}

/** Every overload of a function of that name, wherever it is called from. */
function signaturesOf(functions: CelFunctionCatalog, name: string): string[] {
  const all = [functions.globals, ...functions.namespaces.values(), ...functions.members.values()];
  return all.flatMap((list) => list.filter((fn) => fn.name === name).flatMap((fn) => fn.signatures));
}

/** The name called at `offset` (`size` of `size(x)` or `x.size()`), with its span. */
function calledName(
  site: ExpressionSite,
  text: string,
  offset: number,
): { name: string; span: SourceSpan } | undefined {
  let start = offset;
  while (start > site.span.start && /\w/.test(text[start - 1] ?? "")) start--;
  let end = offset;
  while (end < site.span.end && /\w/.test(text[end] ?? "")) end++;
  if (start === end || !/^\s*\(/.test(text.slice(end, site.span.end))) return undefined;
  return { name: text.slice(start, end), span: { start, end } };
}

function onName(
  scope: RgdScope,
  locals: LocalNames,
  name: string,
  chain: readonly (string | number)[],
  word: SourceSpan,
): HoverAnswer | undefined {
  const { rgd, resolver } = scope;
  if (chain.length === 0) {
    if (locals.has(name)) {
      const schema = locals.get(name);
      const what = name === "each" ? "an item of this collection" : "the forEach item";
      return {
        markdown: `**${name}** — ${what}${schema === undefined ? "" : ` \`${describeType(schema)}\``}`,
        span: word,
      };
    }
    if (name === "schema") return { markdown: "**schema** — the instance (its `spec`, `metadata`)", span: word };
    const resource = rgd.resources.find((r) => r.id === name);
    if (resource === undefined) return undefined;
    const kind = resource.kind === undefined ? "" : ` \`${resource.kind}\` (${resource.apiVersion ?? "?"})`;
    const collection = resource.iterators.length > 0 ? " collection (a list)" : "";
    return { markdown: `**${name}** — resource${collection}${kind}`, span: word };
  }
  const schema = chainSchema(rgd, resolver, [...chain, name], locals);
  return schema === undefined ? undefined : { markdown: fieldText(name, schema), span: word };
}

function inExpression(scope: RgdScope, site: ExpressionSite, text: string, offset: number): HoverAnswer | undefined {
  const locals = localsAt(scope.rgd, scope.resolver, offset);
  // The site's own lexing: names inside string literals are not names.
  const word = site.identifiers.find((t) => t.span.start <= offset && offset <= t.span.end)?.span;
  if (word !== undefined) {
    const lineStart = text.lastIndexOf("\n", word.start - 1) + 1;
    const context = completionContext(text.slice(lineStart, word.end));
    if (context === undefined || context.typed === "") return undefined;
    return onName(scope, locals, context.typed, context.chain, word);
  }
  const called = calledName(site, text, offset);
  if (called !== undefined) {
    const signatures = signaturesOf(scope.functions, called.name);
    if (signatures.length === 0) return undefined;
    return { markdown: ["```", ...signatures, "```"].join("\n"), span: called.span };
  }
  const type = expressionType(scope.rgd, scope.resolver, scope.env, site.source, locals);
  return type === undefined ? undefined : { markdown: `\`\${…}\` is \`${type}\``, span: site.span };
}

function onTemplateKey({ rgd, resolver }: RgdScope, offset: number): HoverAnswer | undefined {
  const key = rgd.document
    .strings()
    .find((s) => s.isKey && s.span.start <= offset && offset < s.span.end && s.path[3] === "template");
  if (key === undefined || key.path[0] !== "spec" || key.path[1] !== "resources") return undefined;
  const resource = rgd.resources[Number(key.path[2])];
  const rest = key.path.slice(4);
  if (resource?.apiVersion === undefined || resource.kind === undefined || rest.length === 0) return undefined;
  const schema = schemaAt(resolver.resolve(resource.apiVersion, resource.kind)?.schema, rest);
  return schema === undefined ? undefined : { markdown: fieldText(key.value, schema), span: key.span };
}

/** In a template's `{{…}}`: a child id says its kind, a field of `.parent`, `.children.<id>` or `.self` its type. */
function inTemplateAction(scope: RgdScope, text: string, offset: number): HoverAnswer | undefined {
  let start = offset;
  while (start > 0 && /\w/.test(text[start - 1] ?? "")) start--;
  let end = offset;
  while (end < text.length && /\w/.test(text[end] ?? "")) end++;
  if (start === end) return undefined;
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const context = templateCompletionContext(text.slice(lineStart, end));
  if (context?.chain === undefined || context.chain.length === 0) return undefined;
  const word = { start, end };
  const name = context.typed;
  if (context.chain.length === 1 && context.chain[0] === "children") {
    const child = scope.rgd.resources.find((r) => r.id === name);
    if (child === undefined) return undefined;
    return {
      markdown: `**${name}** — child \`${child.kind ?? "?"}\` (${child.apiVersion ?? "?"}), as observed`,
      span: word,
    };
  }
  const schema = templateChainSchema(scope, [...context.chain, name], offset);
  return schema === undefined ? undefined : { markdown: fieldText(name, schema), span: word };
}

/** The hover for `offset` of the file's `text` in the scope's RGD, if there is something to say. */
export function hoverAt(scope: RgdScope, text: string, offset: number): HoverAnswer | undefined {
  if (scope.rgd.dialect === "template") return inTemplateAction(scope, text, offset) ?? onTemplateKey(scope, offset);
  const site = scope.rgd.sites.find((s) => s.span.start <= offset && offset < s.span.end);
  if (site !== undefined) return inExpression(scope, site, text, offset);
  return onTemplateKey(scope, offset);
}

export function toHover(answer: HoverAnswer, range: Hover["range"]): Hover {
  return { contents: { kind: MarkupKind.Markdown, value: answer.markdown }, ...(range === undefined ? {} : { range }) };
}
