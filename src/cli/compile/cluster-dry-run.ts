/**
 * `kro validate --cluster`: what the files would write, judged by the API server itself before
 * anything is written. Each ResourceGraphDefinition and CustomResourceDefinition document, and
 * the CRD each compiled RGD generates (what the controller would install), is sent as a
 * server-side dry-run apply; a refusal — a schema the API server does not accept as structural, an
 * admission policy, a kind it does not serve — is an error at that document, with the server's
 * words. The compiler's own checks cannot promise this: only the API server knows its rules.
 */
import type { LoadedFile, LocatedIssue, SourceDocument } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { ApiError, createKubeClient, DiscoveryError, type KubeClient, type KubeObject } from "../../kube/index.js";
import { InputError, isKind } from "../inputs/index.js";

/** The field manager the dry runs name (nothing is stored under it). */
const FIELD_MANAGER = "kro-validate";

export interface ClusterOptions {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
}

async function refusal(client: KubeClient, object: unknown): Promise<string | undefined> {
  try {
    await client.apply(object as KubeObject, { fieldManager: FIELD_MANAGER, dryRun: true });
    return undefined;
  } catch (error) {
    // The server's answer (or its discovery: a kind it does not serve) is a verdict; anything else is not.
    if (error instanceof ApiError || error instanceof DiscoveryError) return error.message;
    throw error;
  }
}

function refused(document: SourceDocument, path: string[], message: string): LocatedIssue {
  const position = document.locate(path);
  return {
    file: document.file,
    issue: { severity: "error", code: "cluster.refused", path, message },
    ...(position === undefined ? {} : { position }),
  };
}

/** Dry-runs every object the files would write; one error per refusal. */
export async function clusterDryRuns(
  loaded: readonly LoadedFile[],
  graphs: readonly CompiledGraph[],
  options: ClusterOptions,
): Promise<LocatedIssue[]> {
  const client = await createKubeClient({
    kubeconfig: options.kubeconfig,
    context: options.context,
    env: process.env,
    maxRetries: 1,
  });
  const issues: LocatedIssue[] = [];
  try {
    for (const document of loaded.flatMap((f) => f.documents)) {
      const isRgd = isKind(document, "ResourceGraphDefinition");
      if (!isRgd && !isKind(document, "CustomResourceDefinition")) continue;
      const kind = isRgd ? "ResourceGraphDefinition" : "CustomResourceDefinition";
      const own = await refusal(client, document.value);
      if (own !== undefined)
        issues.push(refused(document, [], `the API server refuses this ${kind} (server-side dry run): ${own}`));
      if (!isRgd) continue;
      const name = (document.value as { metadata?: { name?: unknown } }).metadata?.name;
      const crd = graphs.find((g) => g.name === name)?.crd;
      const generated = crd === undefined ? undefined : await refusal(client, crd);
      if (generated !== undefined)
        issues.push(
          refused(
            document,
            ["spec", "schema"],
            `the API server refuses the CustomResourceDefinition this RGD generates (server-side dry run): ${generated}`,
          ),
        );
    }
  } catch (error) {
    throw new InputError(
      `--cluster: cannot reach ${client.server}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    client.close();
  }
  return issues;
}
