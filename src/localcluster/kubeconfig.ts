/**
 * The admin kubeconfig for a local cluster. Written as JSON, which every kubeconfig reader
 * (kubectl, client-go, our own loader) accepts as YAML.
 */
export interface KubeconfigInput {
  readonly server: string;
  readonly token: string;
  readonly caData: string;
}

export const LOCAL_CONTEXT = "kro-local";

export function adminKubeconfig(input: KubeconfigInput): string {
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: LOCAL_CONTEXT,
        cluster: { server: input.server, "certificate-authority-data": Buffer.from(input.caData).toString("base64") },
      },
    ],
    users: [{ name: "kro-admin", user: { token: input.token } }],
    contexts: [{ name: LOCAL_CONTEXT, context: { cluster: LOCAL_CONTEXT, user: "kro-admin", namespace: "default" } }],
    "current-context": LOCAL_CONTEXT,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
