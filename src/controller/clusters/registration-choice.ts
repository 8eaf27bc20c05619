/**
 * Which registration names a cluster, from what was read of the hub: a kubeconfig Secret is the
 * deliberate, specific registration and wins over an inventory's ClusterProfile; two Secrets
 * naming one cluster are refused rather than guessed between. One rule for the controller (its
 * informers) and for readers from outside it (`kro tree`, the web view: the reader's own client).
 */
import { compareCodeUnits } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { readProfile } from "./cluster-profile.js";
import { CLUSTER_NAME_LABELS, readRegistration, type Registration } from "./kubeconfig-secret.js";

export interface RegistrationSources {
  readonly cluster: string;
  readonly namespace: string;
  /** Secrets of the namespace labelled with this cluster's name. */
  readonly secrets: readonly KubeObject[];
  /** The ClusterProfile naming the cluster, and the Secret holding its token. */
  readonly profile?: KubeObject | undefined;
  readonly profileToken?: KubeObject | undefined;
  /** ClusterProfiles were looked for (so their absence is worth saying). */
  readonly profilesRead: boolean;
}

export function chooseRegistration(sources: RegistrationSources): Registration {
  const { cluster, namespace } = sources;
  const secrets = [...sources.secrets].sort((a, b) => compareCodeUnits(a.metadata?.name ?? "", b.metadata?.name ?? ""));
  const names = [...new Set(secrets.map((s) => s.metadata?.name))];
  if (names.length === 0 && sources.profile !== undefined) return readProfile(sources.profile, sources.profileToken);
  if (names.length === 0) {
    const profiles = sources.profilesRead ? ` and no ClusterProfile ${namespace}/${cluster}` : "";
    return {
      cluster,
      error: `cluster "${cluster}" is not registered (no Secret in namespace ${namespace} labelled ${CLUSTER_NAME_LABELS.join(" or ")}=${cluster}${profiles})`,
    };
  }
  if (names.length > 1)
    return {
      cluster,
      error: `cluster "${cluster}" is registered twice (Secrets ${names.join(", ")} in ${namespace}): refusing to guess`,
    };
  return readRegistration(secrets[0] as KubeObject) ?? { cluster, error: `cluster "${cluster}" is not registered` };
}
