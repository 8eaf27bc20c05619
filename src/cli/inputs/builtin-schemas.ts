/**
 * The bundled OpenAPI schemas of Kubernetes' built-in kinds (schemas/kubernetes/<minor>.json.gz),
 * read once per process: the compiler type-checks child templates against them offline. Here, not
 * in the controller, which takes a resolver: a command that compiles must not load the controller.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { builtinSchemaResolver, type BuiltinSchemaBundle, type SchemaResolver } from "../../graph/index.js";

// One resolver per minor for the whole process: `kro import helm` asks twice (the compile of the
// example instance, then the scope report), and each read is a gunzip and a JSON.parse of ~250 KB
// (~10 ms of a ~350 ms import, docs/performance-archive.md "CLI start"). The resolver only reads
// the bundle and caches what it resolves, so sharing it is safe.
const loaded = new Map<string, Promise<SchemaResolver>>();

export function loadBuiltinSchemas(minor: string): Promise<SchemaResolver> {
  let resolver = loaded.get(minor);
  if (resolver === undefined) {
    resolver = readBundle(minor);
    loaded.set(minor, resolver);
  }
  return resolver;
}

async function readBundle(minor: string): Promise<SchemaResolver> {
  const file = new URL(`../../../../schemas/kubernetes/${minor}.json.gz`, import.meta.url);
  const bundle = JSON.parse(gunzipSync(await readFile(file)).toString("utf8")) as BuiltinSchemaBundle;
  return builtinSchemaResolver(bundle);
}
