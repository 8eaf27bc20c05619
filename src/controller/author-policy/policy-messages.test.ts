// Refusal messages as cheap CEL: the same text as the plain concatenation, with what is known at
// generation folded in, no emptiness test where a scope cannot be empty, and adoption messages
// built only when the instance adopts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuthorCheck } from "./author-checks.js";
import { messageExpression, neverEmpty } from "./policy-messages.js";

const check = (over: Partial<AuthorCheck>): AuthorCheck => ({
  group: "",
  resource: "configmaps",
  verb: "patch",
  namespace: "request.namespace",
  clusterScoped: false,
  name: undefined,
  guards: [],
  when: undefined,
  nodeIds: ["config"],
  ...over,
});

describe("author-policy refusal messages", () => {
  it("a child named after the instance, in the instance's namespace: one chain, no emptiness tests", () => {
    assert.equal(
      messageExpression(check({ name: 'string((object.metadata.name)) + "-config"' }), "web"),
      '"user " + request.userInfo.username + " may not patch configmaps named " + string((object.metadata.name)) + "-config" + " in namespace " + request.namespace + ", which resource \\"config\\" of ResourceGraphDefinition web would patch"',
    );
  });

  it("literal names and namespaces are folded into the text", () => {
    assert.equal(
      messageExpression(
        check({ group: "apps", resource: "deployments", verb: "delete", namespace: '"monitoring"', name: '"fixed"' }),
        "web",
      ),
      '"user " + request.userInfo.username + " may not delete deployments.apps named fixed in namespace monitoring, which resource \\"config\\" of ResourceGraphDefinition web would delete"',
    );
    assert.equal(
      messageExpression(
        check({ verb: "create", namespace: undefined, clusterScoped: true, resource: "namespaces" }),
        "web",
      ),
      '"user " + request.userInfo.username + " may not create namespaces (cluster-scoped), which resource \\"config\\" of ResourceGraphDefinition web would create"',
    );
  });

  it("a scope computed from the spec keeps its emptiness test and, when a field may be absent, the strictest reading", () => {
    const message = messageExpression(
      check({
        verb: "get",
        resource: "secrets",
        namespace: "(object.spec.ns).lowerAscii()",
        name: "(object.spec.name)",
        guards: ["object.?spec.?ns.hasValue()"],
      }),
      "web",
    );
    assert.equal(
      message,
      '"user " + request.userInfo.username + " may not get secrets" + ((object.?spec.?ns.hasValue()) ? ((object.spec.name) == \'\' ? "" : " named " + (object.spec.name)) : \'\')' +
        ' + ((object.?spec.?ns.hasValue()) ? ((object.spec.ns).lowerAscii() == \'\' ? " in all namespaces" : " in namespace " + (object.spec.ns).lowerAscii()) : " in all namespaces")' +
        ' + ", which resource \\"config\\" of ResourceGraphDefinition web would get"',
    );
  });

  it("an adoption check's message is built only when the instance adopts", () => {
    const when = 'object.metadata.?annotations[?"kro.run/adopt"].orValue("") == "true"';
    const message = messageExpression(check({ verb: "update", name: '"shared"', when }), "web");
    assert.ok(
      message.startsWith(
        `(${when}) ? "user " + request.userInfo.username + " may not update configmaps named shared in namespace " + request.namespace`,
      ),
      message,
    );
    assert.ok(message.endsWith(`(to adopt an existing object, annotation kro.run/adopt)" : ''`), message);
  });

  it("knows which scopes can never be empty", () => {
    assert.equal(neverEmpty("request.namespace"), true);
    assert.equal(neverEmpty('"team-" + string((object.spec.t))'), true);
    assert.equal(neverEmpty('string((object.metadata.name)) + "-x"'), true);
    assert.equal(neverEmpty('"a+b"'), true);
    for (const cel of [
      '""',
      "(request.namespace)",
      "(object.spec.ns)",
      "string((object.spec.a)) + string((object.spec.b))",
      "(object.spec.a)=='b'?'c':(object.spec.d)",
      '(object.spec.a) == "" ? "" : (object.spec.a) + "-x"',
      'string((object.spec.a) + "x")',
    ]) {
      assert.equal(neverEmpty(cel), false, cel);
    }
  });
});
