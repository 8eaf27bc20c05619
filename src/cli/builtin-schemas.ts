/**
 * The bundled OpenAPI schemas of Kubernetes' built-in kinds (schemas/kubernetes/<minor>.json.gz),
 * read once per process: the compiler type-checks child templates against them offline. Here, not
 * in the controller, which takes a resolver: a command that compiles must not load the controller.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { builtinSchemaResolver, type BuiltinSchemaBundle, type SchemaResolver } from "../graph/index.js";

export async function loadBuiltinSchemas(minor: string): Promise<SchemaResolver> {
  const file = new URL(`../../../schemas/kubernetes/${minor}.json.gz`, import.meta.url);
  const bundle = JSON.parse(gunzipSync(await readFile(file)).toString("utf8")) as BuiltinSchemaBundle;
  return builtinSchemaResolver(bundle);
}
