/**
 * Hover: what the name under the cursor is. Inside `${…}`, a resource id says its kind, `schema`
 * the instance, and a field of a chain its type and the schema's description; on a key of a
 * resource's template, the field of that kind (type and description) from the same schemas
 * completion reads (field-schemas.ts). Nothing where no schema is known.
 */
import { MarkupKind, type Hover } from "vscode-languageserver/node";
import { schemaAt, type SchemaResolver } from "../../graph/index.js";
import type { OpenApiSchema } from "../../expr/index.js";
import type { SourceSpan } from "../../api/index.js";
import { completionContext } from "./completion-context.js";
import { chainSchema, describeType } from "./field-schemas.js";
import type { ExpressionSite } from "./expression-sites.js";
import type { RgdIndex } from "./rgd-index.js";

export interface HoverAnswer {
  readonly markdown: string;
  readonly span: SourceSpan;
}

function fieldText(name: string, schema: OpenApiSchema): string {
  const description = schema.description?.trim();
  return `**${name}** \`${describeType(schema)}\`${description === undefined || description === "" ? "" : `\n\n${description}`}`;
}

function inExpression(
  rgd: RgdIndex,
  resolver: SchemaResolver,
  site: ExpressionSite,
  text: string,
  offset: number,
): HoverAnswer | undefined {
  // The site's own lexing: names inside string literals are not names.
  const word = site.identifiers.find((t) => t.span.start <= offset && offset <= t.span.end)?.span;
  if (word === undefined) return undefined;
  const lineStart = text.lastIndexOf("\n", word.start - 1) + 1;
  const context = completionContext(text.slice(lineStart, word.end));
  if (context === undefined || context.typed === "") return undefined;
  const name = context.typed;
  if (context.chain.length === 0) {
    if (name === "schema") return { markdown: "**schema** — the instance (its `spec`, `metadata`)", span: word };
    const resource = rgd.resources.find((r) => r.id === name);
    if (resource === undefined) return undefined;
    const kind = resource.kind === undefined ? "" : ` \`${resource.kind}\` (${resource.apiVersion ?? "?"})`;
    return { markdown: `**${name}** — resource${kind}`, span: word };
  }
  const schema = chainSchema(rgd, resolver, [...context.chain, name]);
  return schema === undefined ? undefined : { markdown: fieldText(name, schema), span: word };
}

function onTemplateKey(rgd: RgdIndex, resolver: SchemaResolver, offset: number): HoverAnswer | undefined {
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

/** The hover for `offset` of the file's `text` in `rgd`, if there is something to say. */
export function hoverAt(
  rgd: RgdIndex,
  resolver: SchemaResolver,
  text: string,
  offset: number,
): HoverAnswer | undefined {
  const site = rgd.sites.find((s) => s.span.start <= offset && offset < s.span.end);
  if (site !== undefined) return inExpression(rgd, resolver, site, text, offset);
  return onTemplateKey(rgd, resolver, offset);
}

export function toHover(answer: HoverAnswer, range: Hover["range"]): Hover {
  return { contents: { kind: MarkupKind.Markdown, value: answer.markdown }, ...(range === undefined ? {} : { range }) };
}
