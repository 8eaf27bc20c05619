// RGD values that read only the instance, rewritten for admission; everything else refused.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileExpression, createKroCelEnvironment, jsonToCel } from "../../expr/index.js";
import { REQUEST_ENV, translateExpression, translateValue } from "./admission-cel.js";

const cel = (value: unknown) => translateValue(value, REQUEST_ENV)?.cel;

describe("admission CEL", () => {
  it("translates instance-only values: spec paths, name, namespace, string functions, interpolation", () => {
    assert.equal(cel("${schema.spec.ns.lowerAscii()}"), "(object.spec.ns).lowerAscii()");
    assert.equal(cel("${schema.metadata.name}"), "(object.metadata.name)");
    assert.equal(cel("${schema.metadata.namespace}"), "(request.namespace)");
    assert.equal(cel("team-${schema.spec.team.name}-x"), '"team-" + string((object.spec.team.name)) + "-x"');
    assert.equal(cel("${schema.spec.a == 'b' ? 'c' : schema.spec.d}"), "(object.spec.a)=='b'?'c':(object.spec.d)");
    assert.equal(cel("kube-system"), '"kube-system"');
    assert.deepEqual(translateExpression("schema.spec.a + schema.spec.b.c", REQUEST_ENV)?.guards, [
      "object.?spec.?a.hasValue()",
      "object.?spec.?b.?c.hasValue()",
    ]);
  });

  it("refuses what it cannot know or mean the same at admission", () => {
    for (const value of [
      "${cfg.data.ns}", // another resource
      "${item}", // an iterator
      "${schema.spec.ns.matches('a.*')}", // regex engines differ
      "${schema.spec.?ns.orValue('x')}", // optionals
      "${{'a': schema.spec.ns}['a']}", // maps
      "${schema.spec['ns']}", // index syntax
      "${schema.status.x}",
      "${schema.metadata.labels.team}",
      "${schema}",
      "${r'raw'}",
      "${'''x'''}",
      "${1 + .5}",
      "${unknownFn(schema.spec.ns)}",
    ])
      assert.equal(cel(value), undefined, value);
    assert.equal(cel({ a: 1 }), undefined);
  });

  it("a string literal is copied verbatim, dots and parentheses included", () => {
    assert.equal(cel("${schema.spec.ns + ' . ( ) '}"), "(object.spec.ns)+' . ( ) '");
  });

  it("the translation means at admission what the controller computes, astral characters included", () => {
    // An emoji is two UTF-16 units but one code point; the API server (cel-go) counts code points,
    // and so does the controller's CEL (src/expr/cel-go-differential.test.ts holds it to cel-go).
    const ns = "😀ateam-a";
    const translated = cel("${schema.spec.ns.substring(2)}");
    assert.equal(translated, "(object.spec.ns).substring(2)");
    const env = createKroCelEnvironment();
    const controller = compileExpression(env, "schema.spec.ns.substring(2)").evaluate({
      schema: jsonToCel({ spec: { ns } }),
    });
    const admission = compileExpression(env, translated).evaluate({ object: jsonToCel({ spec: { ns } }) });
    assert.equal(controller, "team-a"); // cel-go's answer, recorded in test/data/expr/cel-go-golden.json
    assert.equal(admission, controller);
  });
});
