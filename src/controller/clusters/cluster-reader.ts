/**
 * Registered clusters as someone outside the controller reaches them (`kro tree`, the web view):
 * the registration is read from the hub with the reader's own client — so a reader who may not
 * read the namespace's Secrets gets that refusal, never the controller's credentials — and chosen
 * by the controller's rule (registration-choice.ts). One client per cluster, made on first use.
 */
import { isNotFound, type KubeClient, type KubeObject, createKubeClient } from "../../kube/index.js";
import { CLUSTER_PROFILE, profileCluster, profileTokenSecret } from "./cluster-profile.js";
import { CLUSTER_NAME_LABELS } from "./kubeconfig-secret.js";
import { chooseRegistration } from "./registration-choice.js";

/** Where the chart and `kro dev` register member clusters: what a reader assumes unless told. */
export const USUAL_CLUSTER_NAMESPACE = "kro-system";

/** A remote read gives up as soon as the controller's own remote requests do. */
const REMOTE_REQUEST_TIMEOUT_MS = 10_000;

export interface RegisteredClusterClients {
  /** The cluster's client; rejects with why there is none (naming the cluster). */
  clientFor(cluster: string): Promise<KubeClient>;
  close(): void;
}

export function registeredClusterClients(hub: KubeClient, namespace: string): RegisteredClusterClients {
  const clients = new Map<string, Promise<KubeClient>>();

  async function profileOf(
    cluster: string,
  ): Promise<{ profile?: KubeObject; profileToken?: KubeObject; read: boolean }> {
    let profiles: KubeObject[];
    try {
      profiles = (await hub.list(CLUSTER_PROFILE.apiVersion, CLUSTER_PROFILE.kind, { namespace })).items;
    } catch {
      return { read: false }; // the hub does not serve ClusterProfiles (or may not be asked): Secrets only
    }
    const profile = profiles.find((p) => profileCluster(p) === cluster);
    if (profile === undefined) return { read: true };
    try {
      const profileToken = await hub.get({
        apiVersion: "v1",
        kind: "Secret",
        namespace,
        name: profileTokenSecret(profile),
      });
      return { profile, profileToken, read: true };
    } catch (error) {
      if (isNotFound(error)) return { profile, read: true };
      throw error;
    }
  }

  async function connect(cluster: string): Promise<KubeClient> {
    let secrets: KubeObject[];
    try {
      secrets = (
        await Promise.all(
          CLUSTER_NAME_LABELS.map((label) =>
            hub.list("v1", "Secret", { namespace, labelSelector: `${label}=${cluster}` }),
          ),
        )
      ).flatMap((l) => l.items);
    } catch (error) {
      throw new Error(
        `cluster "${cluster}": cannot read its registration in namespace ${namespace}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const { profile, profileToken, read } = secrets.length === 0 ? await profileOf(cluster) : { read: false };
    const registration = chooseRegistration({
      cluster,
      namespace,
      secrets,
      profile,
      profileToken,
      profilesRead: read,
    });
    if ("error" in registration) throw new Error(registration.error);
    return createKubeClient({
      connection: registration.connection,
      requestTimeoutMs: REMOTE_REQUEST_TIMEOUT_MS,
      maxRetries: 1,
      userAgent: "kro-ts",
    });
  }

  return {
    clientFor(cluster) {
      let client = clients.get(cluster);
      if (client === undefined) {
        client = connect(cluster);
        client.catch(() => undefined);
        clients.set(cluster, client);
      }
      return client;
    },
    close() {
      for (const client of clients.values())
        void client.then(
          (c) => {
            c.close();
          },
          () => undefined,
        );
      clients.clear();
    },
  };
}
