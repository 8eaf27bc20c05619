/**
 * Reading the CLI's inputs: YAML files (with positions for diagnostics), the bundled schemas of
 * built-in kinds for a Kubernetes version, and CRD files that teach the compiler more kinds.
 */
import { readFile, stat } from "node:fs/promises";
import {
  formatLocated,
  loadYamlBytes,
  oversizedYamlFile,
  YAML_LIMITS,
  type LoadedFile,
  type LocatedIssue,
  type SourceDocument,
} from "../../api/index.js";
import type { Issue } from "../../diag/index.js";
import { chainResolvers, withCrds, type SchemaResolver } from "../../graph/index.js";
import { loadBuiltinSchemas } from "./builtin-schemas.js";
import { DEFAULT_KUBE_MINOR, resolveKubeRelease } from "../../localcluster/index.js";

export class InputError extends Error {
  override readonly name = "InputError";
}

export async function loadFiles(files: readonly string[]): Promise<LoadedFile[]> {
  return Promise.all(
    files.map(async (file) => {
      let bytes: Uint8Array;
      try {
        const size = (await stat(file)).size;
        // A file over the limit is reported without reading it whole.
        if (size > YAML_LIMITS.maxBytes) return oversizedYamlFile(file, size);
        bytes = await readFile(file);
      } catch (error) {
        throw new InputError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      return loadYamlBytes(file, bytes);
    }),
  );
}

export function isKind(document: SourceDocument, kind: string): boolean {
  const value = document.value as { kind?: unknown } | null;
  return typeof value === "object" && value !== null && value.kind === kind;
}

export function locate(document: SourceDocument, issue: Issue): LocatedIssue {
  const position = document.locate(issue.path, issue.inner);
  return { file: document.file, issue, ...(position ? { position } : {}) };
}

/** The apiVersions of every child (template or externalRef) of the RGDs in these documents. */
export function childApiVersions(documents: readonly SourceDocument[]): string[] {
  const found = new Set<string>();
  for (const document of documents) {
    const spec = (document.value as { spec?: { resources?: unknown } } | null)?.spec;
    if (!isKind(document, "ResourceGraphDefinition") || !Array.isArray(spec?.resources)) continue;
    for (const entry of spec.resources as unknown[]) {
      const item = entry as { template?: { apiVersion?: unknown }; externalRef?: { apiVersion?: unknown } } | null;
      const apiVersion = item?.template?.apiVersion ?? item?.externalRef?.apiVersion;
      if (typeof apiVersion === "string") found.add(apiVersion);
    }
  }
  return [...found];
}

/** CRD files first (the user's explicit word), then a live cluster's schemas, then the bundled built-ins. */
export async function schemaResolverFor(
  kubeVersion: string = DEFAULT_KUBE_MINOR,
  crdFiles: readonly string[] = [],
  live?: SchemaResolver,
): Promise<SchemaResolver> {
  const release = resolveKubeRelease(kubeVersion);
  const crds = (await loadFiles(crdFiles)).flatMap((f) => {
    const [first] = f.problems;
    if (first !== undefined) throw new InputError(`cannot parse CRD file: ${formatLocated(first)}`);
    return f.documents.filter((d) => isKind(d, "CustomResourceDefinition")).map((d) => d.value);
  });
  const builtins = await loadBuiltinSchemas(release.minor);
  return withCrds(crds, live === undefined ? builtins : chainResolvers(live, builtins));
}
