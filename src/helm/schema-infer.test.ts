import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { convertJsonSchema, inferSchema } from "./schema-infer.js";

const OPEN = "x-kubernetes-preserve-unknown-fields";

describe("schema inferred from values.yaml", () => {
  it("types scalars, keeps defaults, and carries comments into descriptions", () => {
    const comments = new Map([
      ["replicas", "How many pods."],
      ["image\u0000tag", "Image tag."],
    ]);
    const schema = inferSchema({ replicas: 2, ratio: 0.5, name: "web", on: true, image: { tag: "1.0" } }, comments);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.replicas, { description: "How many pods.", type: "integer", default: 2 });
    assert.deepEqual(props.ratio, { type: "number", default: 0.5 });
    assert.deepEqual(props.name, { type: "string", default: "web" });
    assert.deepEqual(props.on, { type: "boolean", default: true });
    assert.equal((props.image?.properties as Record<string, { description?: string }>).tag?.description, "Image tag.");
  });
  it("keeps every map open (toYaml passes unknown keys through), empty maps and lists too, and nulls nullable", () => {
    const schema = inferSchema(
      { podAnnotations: {}, probe: { httpGet: { path: "/" } }, tolerations: [], tag: null },
      new Map(),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.podAnnotations, { type: "object", [OPEN]: true, default: {} });
    assert.equal(props.probe?.[OPEN], true);
    assert.deepEqual(props.tolerations, { type: "array", items: { [OPEN]: true }, default: [] });
    assert.deepEqual(props.tag, { nullable: true, [OPEN]: true });
  });
});

describe("values.schema.json as a CRD schema", () => {
  it("resolves type lists, converts exclusive bounds, opens what a CRD cannot say, and adds defaults", () => {
    const schema = convertJsonSchema(
      {
        type: "object",
        properties: {
          qps: { type: "number", exclusiveMinimum: 0 },
          name: { type: ["string", "null"] },
          any: { $ref: "#/definitions/x" },
          closed: { type: "object", additionalProperties: false, properties: { a: { type: "string" } } },
          mode: { type: "string", enum: ["a", "b"] },
        },
        required: ["mode"],
      },
      { qps: 5, mode: "a", closed: { a: "z" } },
      new Map(),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.qps, { type: "number", minimum: 0, exclusiveMinimum: true, default: 5 });
    assert.deepEqual(props.name, { type: "string", nullable: true });
    assert.deepEqual(props.any, { [OPEN]: true });
    assert.equal(props.closed?.[OPEN], undefined, "additionalProperties: false stays closed");
    assert.deepEqual(props.mode, { type: "string", enum: ["a", "b"], default: "a" });
    assert.equal(schema.required, undefined, "values.yaml gives mode: an object default is checked against required");
  });

  it("gives an object with required properties a default the API server accepts: their defaults, or none", () => {
    const schema = convertJsonSchema(
      {
        type: "object",
        properties: {
          image: {
            type: "object",
            properties: { repository: { type: "string", minLength: 1 }, tag: { type: "string" } },
            required: ["repository"],
          },
          auth: { type: "object", properties: { user: { type: "string" } }, required: ["user"] },
          plain: { type: "object", properties: { a: { type: "string" } } },
        },
      },
      { image: { repository: "kro-ts", tag: "" }, auth: {}, plain: { a: "x" } },
      new Map(),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.image?.default, {}, "the API server fills in repository's own default");
    assert.equal(props.image.required, undefined, "`{}` under required would be refused: default.repository");
    assert.deepEqual(props.auth?.default, {}, "values.yaml gives auth: its required keys are dropped");
    assert.equal(props.auth.required, undefined);
    assert.deepEqual(props.plain?.default, {});
  });

  it("says in structural terms what a CRD cannot hold as written (each of these made the API server refuse the CRD or the chart's defaults)", () => {
    const schema = convertJsonSchema(
      {
        type: "object",
        properties: {
          ports: { type: "array", uniqueItems: true, items: { type: "integer" } },
          volumes: { type: "array", uniqueItems: true, items: { type: "object" } },
          logLevel: { type: ["string", "null"], enum: ["debug", "info"] },
          mode: { type: "string", enum: ["a", "b"] },
          image: {
            type: "object",
            required: ["repository", "tag", "digest"],
            properties: { repository: { type: "string" }, tag: { type: ["string", "null"] } },
          },
          unset: { type: "object", required: ["x"], properties: { x: { type: "string" } } },
        },
      },
      { ports: [80], volumes: [], logLevel: null, mode: "a", image: { repository: "nginx", tag: null } },
      new Map(),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    assert.equal(props.ports?.uniqueItems, undefined, "uniqueItems: true is refused by the API server");
    assert.equal(props.ports?.["x-kubernetes-list-type"], "set", "a set of scalars says the same");
    assert.deepEqual([props.volumes?.uniqueItems, props.volumes?.["x-kubernetes-list-type"]], [undefined, undefined]);
    assert.deepEqual(props.logLevel?.enum, ["debug", "info", null], "a nullable enum lists null");
    assert.equal(props.logLevel.nullable, true);
    assert.deepEqual(props.mode?.enum, ["a", "b"], "not nullable here: an enum is only as nullable as its field");
    assert.equal(
      props.image?.required,
      undefined,
      "values.yaml gives image: Helm checked it, and `{}` would be refused",
    );
    assert.deepEqual(props.unset?.required, ["x"], "values.yaml does not give the object: kept as written");
  });
});

describe("values.schema.json with $ref, and placeholder defaults", () => {
  it("follows local $refs (definitions, $defs, escaped pointers), keeps keywords beside them, and leaves a cycle or a remote ref open", () => {
    const root = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: {
        labels: { type: "object", additionalProperties: { type: "string" } },
        "a/b": { type: "integer", minimum: 1 },
      },
      $defs: { node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/$defs/node" } } } },
      properties: {
        global: { type: "object", properties: { commonLabels: { $ref: "#/definitions/labels" } } },
        replicas: { $ref: "#/definitions/a~1b", description: "How many." },
        tree: { $ref: "#/$defs/node" },
        remote: { $ref: "https://example.com/schema.json" },
      },
    };
    const schema = convertJsonSchema(
      root,
      { global: { commonLabels: { team: "a" } }, replicas: 2, tree: { name: "t" } },
      new Map(),
    );
    const props = schema.properties as Record<string, Record<string, unknown>>;
    const global = props.global?.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(
      global.commonLabels,
      { type: "object", properties: { team: { type: "string", default: "a" } }, [OPEN]: true, default: {} },
      "the referenced object, with a default the API server fills in",
    );
    assert.deepEqual(
      props.global?.default,
      {},
      "so an instance giving only overrides still has .Values.global.commonLabels",
    );
    assert.deepEqual(props.replicas, { description: "How many.", minimum: 1, type: "integer", default: 2 });
    const tree = props.tree?.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(tree.name, { type: "string", default: "t" });
    assert.deepEqual(tree.child, { [OPEN]: true }, "the cycle stops one level down, open");
    assert.deepEqual(props.remote, { [OPEN]: true });
  });

  it("an empty-string default is a placeholder: any value is accepted, the default kept", () => {
    const schema = inferSchema({ minReplicas: "", name: "web" }, new Map());
    const props = schema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.minReplicas, { [OPEN]: true, default: "" });
    assert.deepEqual(props.name, { type: "string", default: "web" });
  });
});
