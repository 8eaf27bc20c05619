// The kro-ts library entry: re-exports the public APIs for TypeScript users who embed kro-ts.
// Modules never import this file (see .dependency-cruiser.cjs); only here may env default to process.env.
import { createKubeClient as createKubeClientWithEnv, type KubeClient, type KubeClientOptions } from "./kube/index.js";

export * from "./kube/index.js";

/** Like kube's createKubeClient, but reads $KUBECONFIG, $HOME etc. from process.env unless `env` is given. */
export function createKubeClient(options: KubeClientOptions = {}): Promise<KubeClient> {
  return createKubeClientWithEnv({ env: process.env, ...options });
}

// The compiler: RGD → CompiledGraph (CRD, DAG, typed expressions) and pictures of the graph.
export {
  compileRgd,
  builtinSchemaResolver,
  chainResolvers,
  crdSchemaResolver,
  schemaBundleFromOpenApi,
  graphDot,
  graphMermaid,
  graphPicture,
  graphText,
  NODE_STATES,
  PICTURE_FORMATS,
  type CompiledGraph,
  type CompiledNode,
  type CompileResult,
  type CompileRgdOptions,
  type BuiltinSchemaBundle,
  type NodeState,
  type PictureFormat,
  type PictureOptions,
  type ResolvedKind,
  type SchemaResolver,
} from "./graph/index.js";
export { createKroCelEnvironment, type KroCelEnvironment } from "./expr/index.js";
export { formatIssue, formatPath, hasErrors, type Issue, type IssuePath } from "./diag/index.js";
/** The bundled schemas of Kubernetes' built-in kinds for a version (default 1.33), plus CRD files. */
export { schemaResolverFor } from "./cli/inputs/index.js";
