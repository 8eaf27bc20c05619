/**
 * `--cluster`: child-kind schemas from the live API server's OpenAPI v3 (`/openapi/v3` index →
 * one document per group-version) plus discovery for plural and scope. Documents are cached on
 * disk per server and per document hash (the index's `?hash=` changes whenever the content
 * does, e.g. a CRD update or a server upgrade), so a warm run fetches only the small index.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import {
  builtinSchemaResolver,
  schemaBundleFromOpenApi,
  type OpenApiGroupVersion,
  type SchemaResolver,
} from "../../graph/index.js";
import { ApiError, createKubeClient, type KubeClient } from "../../kube/index.js";
import { InputError } from "../inputs/index.js";

export interface LiveSchemaOptions {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  /** Where documents are cached; default $KRO_CACHE_DIR, $XDG_CACHE_HOME/kro-ts or ~/.cache/kro-ts, plus /openapi. */
  readonly cacheDir?: string | undefined;
}

export interface LiveSchemaStats {
  readonly fetched: number;
  readonly cached: number;
}

interface OpenApiIndex {
  readonly paths?: Readonly<Record<string, { readonly serverRelativeURL?: string }>>;
}

export function defaultSchemaCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env.KRO_CACHE_DIR ?? path.join(env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "kro-ts");
  return path.join(base, "openapi");
}

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

async function cachedDocument(
  client: KubeClient,
  url: string,
  dir: string,
  stats: { fetched: number; cached: number },
): Promise<unknown> {
  // With no hash in the URL the content may change unnoticed, so such documents are never cached.
  const cacheable = url.includes("hash=");
  const file = path.join(dir, `${sha(url).slice(0, 40)}.json`);
  if (cacheable) {
    try {
      const cached: unknown = JSON.parse(await readFile(file, "utf8"));
      stats.cached++;
      return cached;
    } catch {
      // missing or unreadable: fetch it again
    }
  }
  const { document, stale } = await fetchDocument(client, url);
  stats.fetched++;
  if (cacheable && !stale) {
    await mkdir(dir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(document));
    await rename(temporary, file);
  }
  return document;
}

/**
 * The server answers 301 to a hash that is no longer current (a CRD changed between the index and
 * this request); the document without the hash is the current one.
 */
export async function fetchDocument(client: KubeClient, url: string): Promise<{ document: unknown; stale: boolean }> {
  try {
    return { document: await client.getPath(url), stale: false };
  } catch (error) {
    const unhashed = url.split("?")[0] ?? url;
    if (!(error instanceof ApiError) || (error.status !== 301 && error.status !== 302) || unhashed === url) throw error;
    // Cached under the old hash it would be wrong for that hash; the next run's index has the new one.
    return { document: await client.getPath(unhashed), stale: true };
  }
}

/**
 * A resolver for the given kinds' group-versions ("all": every group-version the server publishes,
 * for an editor that does not know yet which kinds will be typed); kinds the server does not serve
 * resolve to undefined.
 */
export async function liveSchemaResolver(
  apiVersions: readonly string[] | "all",
  options: LiveSchemaOptions = {},
): Promise<{ resolver: SchemaResolver; stats: LiveSchemaStats; server: string }> {
  // A CLI run should fail fast when the cluster is unreachable, not retry like a controller.
  const client = await createKubeClient({
    kubeconfig: options.kubeconfig,
    context: options.context,
    env: process.env,
    maxRetries: 1,
  });
  try {
    const dir = path.join(options.cacheDir ?? defaultSchemaCacheDir(), sha(client.server).slice(0, 16));
    const index = await client.getPath<OpenApiIndex>("/openapi/v3");
    const served = await client.discovery.all();
    const stats = { fetched: 0, cached: 0 };
    const groupVersions: OpenApiGroupVersion[] = [];
    const wanted =
      apiVersions === "all"
        ? Object.keys(index.paths ?? {}).flatMap((key) => /^apis?\/(.+)$/.exec(key)?.[1] ?? [])
        : apiVersions;
    for (const groupVersion of [...new Set(wanted)].sort()) {
      const key = groupVersion.includes("/") ? `apis/${groupVersion}` : `api/${groupVersion}`;
      const entry = index.paths?.[key];
      if (entry === undefined) continue;
      const document = await cachedDocument(client, entry.serverRelativeURL ?? `/openapi/v3/${key}`, dir, stats);
      const resources = served
        .filter((r) => (r.group === "" ? r.version : `${r.group}/${r.version}`) === groupVersion)
        .map((r) => ({ kind: r.kind, plural: r.resource, namespaced: r.namespaced }));
      groupVersions.push({ groupVersion, document, resources });
    }
    return {
      resolver: builtinSchemaResolver(schemaBundleFromOpenApi("live", groupVersions)),
      stats,
      server: client.server,
    };
  } catch (error) {
    throw new InputError(
      `--cluster: cannot read schemas from ${client.server}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    client.close();
  }
}
