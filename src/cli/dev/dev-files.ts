/**
 * Reading `kro dev`'s files: every document becomes an object to apply, every RGD is compiled
 * offline (the same compiler the controller runs) so problems are shown at file:line:column
 * the moment the file is saved. A file that does not parse is not applied at all: the cluster
 * keeps what it had.
 */
import { formatLocated, type LoadedFile, type SourceDocument } from "../../api/index.js";
import { error as issueError, hasErrors } from "../../diag/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, withCrds, type CompiledGraph, type SchemaResolver } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { DevObject } from "./dev-apply.js";
import { isKind, loadFiles, locate } from "../inputs/index.js";

export interface DevLoad {
  readonly objects: readonly DevObject[];
  readonly graphs: readonly CompiledGraph[];
  /** Formatted diagnostics (errors and warnings), each `file:line:col: …` with the source line. */
  readonly diagnostics: readonly string[];
  readonly errors: number;
  /** Files not applied because they could not be read or parsed. */
  readonly skippedFiles: readonly string[];
}

const env = createKroCelEnvironment({ enableRuntime: true });

async function loadOne(file: string): Promise<LoadedFile | string> {
  try {
    const [loaded] = await loadFiles([file]);
    return loaded ?? `${file}: cannot read`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function isObject(document: SourceDocument): document is SourceDocument & { value: KubeObject } {
  const v = document.value as KubeObject | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.apiVersion === "string" &&
    typeof v.kind === "string" &&
    typeof v.metadata?.name === "string"
  );
}

export async function loadDevFiles(files: readonly string[], builtins: SchemaResolver): Promise<DevLoad> {
  const diagnostics: string[] = [];
  const skippedFiles: string[] = [];
  let errors = 0;
  const loaded: LoadedFile[] = [];
  for (const file of files) {
    const result = await loadOne(file);
    if (typeof result === "string") {
      diagnostics.push(result);
      skippedFiles.push(file);
      errors++;
    } else if (result.problems.length > 0) {
      diagnostics.push(...result.problems.map((p) => formatLocated(p, result.text)));
      skippedFiles.push(file);
      errors += result.problems.filter((p) => p.issue.severity === "error").length;
    } else {
      loaded.push(result);
    }
  }
  const documents = loaded.flatMap((f) =>
    f.documents.filter((d) => d.value !== null && d.value !== undefined).map((d) => ({ file: f, d })),
  );
  const crds = documents.filter(({ d }) => isKind(d, "CustomResourceDefinition")).map(({ d }) => d.value);
  const resolver = withCrds(crds, builtins);
  const objects: DevObject[] = [];
  const graphs: CompiledGraph[] = [];
  for (const { file, d } of documents) {
    if (!isObject(d)) {
      const issue = issueError(
        "dev.not-an-object",
        [],
        "not a Kubernetes object (needs apiVersion, kind and metadata.name); not applied",
      );
      diagnostics.push(formatLocated(locate(d, issue), file.text));
      errors++;
      continue;
    }
    objects.push({ file: file.file, object: d.value });
    if (!isKind(d, "ResourceGraphDefinition")) continue;
    const result = compileRgd(d.value, { resolver, env });
    diagnostics.push(...result.issues.map((issue) => formatLocated(locate(d, issue), file.text)));
    errors += result.issues.filter((i) => i.severity === "error").length;
    if (result.graph !== undefined && !hasErrors(result.issues)) graphs.push(result.graph);
  }
  return { objects, graphs, diagnostics, errors, skippedFiles };
}
