// Hover over the test RGD: resource ids, `schema`, fields of a chain (type and the schema's own
// description) and keys of a template (the kind's field), with the range of the word hovered.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { createKroCelEnvironment } from "../../expr/index.js";
import type { SchemaResolver } from "../../graph/index.js";
import { loadBuiltinSchemas } from "../inputs/index.js";
import { analyze } from "./analysis.js";
import { celFunctionCatalog } from "./cel-functions.js";
import { hoverAt } from "./hover.js";

// The fixture, with a description on one spec field (the bundled Kubernetes schemas carry none).
const TEXT = readFileSync(new URL("../../../../test/data/lsp/webapp-rgd.yaml", import.meta.url), "utf8").replace(
  'image: string | default="nginx:1.27"',
  'image: string | default="nginx:1.27" description="The container image every pod runs"',
);

describe("hover", () => {
  let resolver: SchemaResolver;
  const hover = (needle: string, within = 0, occurrence = 0) => {
    let at = -1;
    for (let i = 0; i <= occurrence; i++) at = TEXT.indexOf(needle, at + 1);
    assert.ok(at >= 0, `${needle} is in the fixture`);
    const offset = at + within;
    const env = createKroCelEnvironment({ enableRuntime: true });
    const analysis = analyze("file:///x.yaml", 1, TEXT, { resolver, env });
    const rgd = analysis.rgds[0];
    assert.ok(rgd !== undefined);
    const answer = hoverAt({ rgd, resolver, env, functions: celFunctionCatalog(env) }, TEXT, offset);
    return answer === undefined ? undefined : { ...answer, word: TEXT.slice(answer.span.start, answer.span.end) };
  };

  before(async () => {
    resolver = await loadBuiltinSchemas("1.33");
  });

  it("a resource id says its kind; schema says it is the instance", () => {
    const onId = hover("${deploy.metadata.name}-", 4);
    assert.deepEqual(onId && { word: onId.word, markdown: onId.markdown }, {
      word: "deploy",
      markdown: "**deploy** — resource `Deployment` (apps/v1)",
    });
    assert.match(hover("${schema.spec.replicas}", 3)?.markdown ?? "", /^\*\*schema\*\* — the instance/);
  });

  it("a field of a chain: its type and the schema's description, the range the word", () => {
    const replicas = hover("${schema.spec.replicas}", 16);
    assert.deepEqual(replicas && { word: replicas.word, markdown: replicas.markdown }, {
      word: "replicas",
      markdown: "**replicas** `integer`",
    });
    assert.equal(
      hover("${schema.spec.image}", 16)?.markdown,
      "**image** `string`\n\nThe container image every pod runs",
    );
    const name = hover("${deploy.metadata.name}-", 20);
    assert.equal(name?.word, "name");
    assert.equal(name.markdown, "**name** `string`");
  });

  it("a key of a template: that kind's field", () => {
    const replicas = hover("replicas: ${schema", 2);
    assert.equal(replicas?.word, "replicas");
    assert.equal(replicas.markdown, "**replicas** `integer`");
    assert.equal(hover("ports:", 1)?.markdown, "**ports** `[]object`");
    assert.equal(hover("matchLabels:", 1)?.markdown, "**matchLabels** `map[string]string`");
  });

  it("anywhere else in ${…}: the CEL type of the whole expression, the range the ${…}", () => {
    const whole = hover("${deploy.status.?availableReplicas.orValue(0)}", 0);
    assert.deepEqual(whole && { word: whole.word, markdown: whole.markdown }, {
      word: "${deploy.status.?availableReplicas.orValue(0)}",
      markdown: "`${…}` is `int`",
    });
    assert.equal(hover("${schema.metadata.name}", 0)?.markdown, "`${…}` is `string`");
    // A struct's generated type name is not shown: it is an object to the reader.
    assert.equal(hover("${deploy.metadata.name}-", 0)?.markdown, "`${…}` is `string`");
  });

  it("a called function: its signatures", () => {
    const orValue = hover("orValue(0)", 1);
    assert.equal(orValue?.word, "orValue");
    assert.equal(orValue.markdown, "```\noptional<dyn>.orValue(expr): dyn\n```");
  });

  it("nothing on a key outside templates", () => {
    assert.equal(hover("image: string", 1), undefined);
  });
});
