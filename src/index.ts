// The kro-ts library entry: re-exports the public APIs for TypeScript users who embed kro-ts.
// Modules never import this file (see .dependency-cruiser.cjs); only here may env default to process.env.
import { createKubeClient as createKubeClientWithEnv, type KubeClient, type KubeClientOptions } from "./kube/index.js";

export * from "./kube/index.js";

/** Like kube's createKubeClient, but reads $KUBECONFIG, $HOME etc. from process.env unless `env` is given. */
export function createKubeClient(options: KubeClientOptions = {}): Promise<KubeClient> {
  return createKubeClientWithEnv({ env: process.env, ...options });
}
