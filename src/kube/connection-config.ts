/**
 * Everything needed to reach one API server, whatever it came from (kubeconfig, in-cluster
 * service account, or a caller building it by hand). Secrets are bytes/strings, files are paths.
 */
export interface ExecConfig {
  readonly apiVersion: "client.authentication.k8s.io/v1" | "client.authentication.k8s.io/v1beta1";
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly provideClusterInfo: boolean;
  readonly installHint?: string;
}

export interface ConnectionConfig {
  /** Where this came from, for messages: "kubeconfig /x context y" or "in-cluster". */
  readonly source: string;
  readonly server: string;
  /** The context's namespace (or the service account's), for callers that want a default. */
  readonly namespace: string;
  readonly ca?: Buffer;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly clientCert?: Buffer;
  readonly clientKey?: Buffer;
  readonly token?: string;
  /** Re-read periodically: projected service-account tokens rotate. */
  readonly tokenFile?: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  readonly exec?: ExecConfig;
}

/**
 * The same API server and TLS trust as `config`, reached with someone else's bearer token and
 * none of `config`'s own credentials (client certificate, token or token file, basic auth, exec
 * plugin): reads on a person's behalf, so the API server judges them as that person.
 */
export function bearerConnection(
  config: ConnectionConfig,
  token: string,
  namespace: string,
  source: string,
): ConnectionConfig {
  const { server, ca, insecureSkipTlsVerify, tlsServerName } = config;
  return {
    source,
    server,
    namespace,
    insecureSkipTlsVerify,
    token,
    ...(ca === undefined ? {} : { ca }),
    ...(tlsServerName === undefined ? {} : { tlsServerName }),
  };
}
