/**
 * Shared by the runtime's unit tests (not itself a test file): the fixture RGDs compiled with the
 * bundled built-in schemas, and instances to evaluate them with.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { loadYaml } from "../../../src/api/index.js";
import {
  builtinSchemaResolver,
  compileRgd,
  type BuiltinSchemaBundle,
  type CelCompiledGraph,
  type CompiledGraph,
} from "../../../src/graph/index.js";
import type { KubeJson } from "../../../src/runtime/types.js";

const root = new URL("../../../../", import.meta.url);
const resolver = builtinSchemaResolver(
  JSON.parse(
    gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
  ) as BuiltinSchemaBundle,
);

export function rgdFixture(name: string): KubeJson {
  const [document] = loadYaml(
    `${name}.yaml`,
    readFileSync(new URL(`test/fixtures/rgd/${name}.yaml`, root), "utf8"),
  ).documents;
  return document?.value as KubeJson;
}

/** The fixtures are CEL-dialect RGDs: their graphs carry the generated CRD. */
export function compileValue(rgd: unknown): CelCompiledGraph {
  const result = compileRgd(rgd, { resolver });
  if (result.graph === undefined) throw new Error(`fixture does not compile: ${JSON.stringify(result.issues)}`);
  if (result.graph.dialect !== "cel") throw new Error("fixture is not a CEL-dialect RGD");
  return result.graph;
}

export function compileFixture(name: string): CelCompiledGraph {
  return compileValue(rgdFixture(name));
}

export function instanceOf(graph: CompiledGraph, spec: KubeJson, metadata: KubeJson = {}): KubeJson {
  return {
    apiVersion: `${graph.instance.group}/${graph.instance.version}`,
    kind: graph.instance.kind,
    metadata: { name: "demo", namespace: "team", uid: "uid-1", generation: 1, ...metadata },
    spec,
  };
}

/** Reads a nested value without trusting its shape. */
export function dig(value: unknown, ...path: (string | number)[]): unknown {
  let node = value;
  for (const key of path)
    node = typeof node === "object" && node !== null ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}
