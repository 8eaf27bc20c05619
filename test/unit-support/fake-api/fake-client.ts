/**
 * The real KubeClient over a FakeCluster: only its Transport is replaced (fake-transport.ts), so
 * discovery, path building, list pagination, informers and watch parsing are the product's own.
 */
import { KubeClient } from "../../../src/kube/index.js";
import { silentLogger } from "../../../src/kube/types.js";
import { CredentialProvider } from "../../../src/kube/credentials.js";
import type { ConnectionConfig } from "../../../src/kube/connection-config.js";
import type { Transport } from "../../../src/kube/transport.js";
import { FakeTransport } from "./fake-transport.js";
import type { FakeCluster } from "./fake-cluster.js";

export function clientFor(cluster: FakeCluster): KubeClient {
  const transport = new FakeTransport(cluster);
  const config: ConnectionConfig = {
    source: `fake cluster ${cluster.name}`,
    server: transport.server,
    namespace: "default",
    insecureSkipTlsVerify: true,
  };
  return new KubeClient({
    config,
    // The Transport class has private members, so no other class can satisfy its type: the fake
    // implements every public member the client calls (request, stream, wakeRetriesWhen, poolStats, close).
    transport: transport as unknown as Transport,
    credentials: new CredentialProvider(config, {}),
    logger: silentLogger,
    metrics: {},
  });
}
