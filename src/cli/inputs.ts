/**
 * Reading the CLI's inputs: YAML files (with positions for diagnostics), the bundled schemas of
 * built-in kinds for a Kubernetes version, and CRD files that teach the compiler more kinds.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { loadYaml, type LoadedFile, type LocatedIssue, type SourceDocument } from "../api/index.js";
import type { Issue } from "../diag/index.js";
import { builtinSchemaResolver, chainResolvers, crdSchemaResolver, type BuiltinSchemaBundle, type SchemaResolver } from "../graph/index.js";
import { DEFAULT_KUBE_MINOR, resolveKubeRelease } from "../localcluster/index.js";

export class InputError extends Error {
  override readonly name = "InputError";
}

export async function loadFiles(files: readonly string[]): Promise<LoadedFile[]> {
  return Promise.all(files.map(async (file) => {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new InputError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    return loadYaml(file, text);
  }));
}

export function isKind(document: SourceDocument, kind: string): boolean {
  const value = document.value as { kind?: unknown } | null;
  return typeof value === "object" && value !== null && value.kind === kind;
}

export function locate(document: SourceDocument, issue: Issue): LocatedIssue {
  const position = document.locate(issue.path, issue.inner);
  return { file: document.file, issue, ...(position ? { position } : {}) };
}

export async function schemaResolverFor(kubeVersion: string = DEFAULT_KUBE_MINOR, crdFiles: readonly string[] = []): Promise<SchemaResolver> {
  const release = resolveKubeRelease(kubeVersion);
  const bundleFile = new URL(`../../../schemas/kubernetes/${release.minor}.json.gz`, import.meta.url);
  const bundle = JSON.parse(gunzipSync(await readFile(bundleFile)).toString("utf8")) as BuiltinSchemaBundle;
  const crds = (await loadFiles(crdFiles)).flatMap((f) => {
    if (f.problems.length > 0) throw new InputError(`cannot parse ${f.file}: ${f.problems[0]?.issue.message ?? "invalid YAML"}`);
    return f.documents.filter((d) => isKind(d, "CustomResourceDefinition")).map((d) => d.value);
  });
  return chainResolvers(crdSchemaResolver(crds), builtinSchemaResolver(bundle));
}
