/**
 * `kro ui [--port P] [--address A]`: a read-only web view of the cluster's RGDs — an overview of
 * their instances counted by state, filtered and paged, and a page per RGD and per instance (its
 * tree as `kro tree` computes it, conditions, Events), refreshed live. It reads
 * with the caller's kubeconfig, so RBAC decides what the page shows: a refused read is shown as
 * "not permitted". Everything the page needs is served by this process (works offline).
 */
import type { Command } from "commander";
import type { CompiledGraph } from "../../graph/index.js";
import { createSnapshotReader, graphCacheKey, snapshotSession, startUiServer } from "../../inspect/index.js";
import { createKubeClient } from "../../kube/index.js";
import { registeredClusterClients, USUAL_CLUSTER_NAMESPACE } from "../../controller/index.js";
import { durationFlag, InputError } from "../inputs/index.js";
import { liveGraphSource } from "./tree-live.js";

interface UiFlags {
  readonly port: string;
  readonly address: string;
  readonly interval: string;
  readonly selector?: string;
  readonly namespace?: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly schemaCache?: string;
  readonly allowRemote?: boolean;
  readonly clusterNamespace: string;
}

function integerFlag(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new InputError(`${name} must be an integer from ${String(min)} to ${String(max)}, got "${value}"`);
  return n;
}

async function runUi(flags: UiFlags): Promise<void> {
  const port = integerFlag("--port", flags.port, 0, 65535);
  const refreshMs = durationFlag("--interval", flags.interval);
  const exposure = exposureWarning(flags.address);
  if (exposure !== undefined && flags.allowRemote !== true)
    throw new InputError(
      `refusing to listen on ${flags.address}: anyone who can reach it would see everything your kubeconfig's user may read, without signing in. Use the default (127.0.0.1) and an SSH tunnel, the controller's --ui-bind-address (each user signs in with their own token), or pass --allow-remote if that is what you want`,
    );
  if (refreshMs < 200) throw new InputError(`--interval must be at least 200ms, got "${flags.interval}"`);
  const client = await createKubeClient({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    env: process.env,
    maxRetries: 1,
  });
  // Compiled here, against the cluster's schemas; kept while an RGD's generation is listed.
  const compiled = new Map<string, CompiledGraph>();
  const schemaOptions = { kubeconfig: flags.kubeconfig, context: flags.context, cacheDir: flags.schemaCache };
  const clusters = registeredClusterClients(client, flags.clusterNamespace);
  const reader = createSnapshotReader(client, {
    clusters,
    graphs: (rgds) => {
      const current = new Set(rgds.map(graphCacheKey));
      for (const key of compiled.keys()) if (!current.has(key)) compiled.delete(key);
      return liveGraphSource(rgds, schemaOptions, compiled);
    },
    ...(flags.selector === undefined ? {} : { selector: flags.selector }),
    ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
  });
  let server;
  try {
    // One person (the kubeconfig's user) behind every request.
    const session = snapshotSession(reader, refreshMs);
    server = await startUiServer({
      address: flags.address,
      port,
      refreshMs,
      sessionFor: () => Promise.resolve({ ok: true, session }),
    });
  } catch (error) {
    clusters.close();
    client.close();
    throw new InputError(
      `cannot listen on ${flags.address}:${String(port)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  process.stdout.write(
    `kro ui: serving ${server.url} (read-only, as the kubeconfig's user on ${client.server}; Ctrl-C to stop)\n`,
  );
  if (exposure !== undefined) process.stderr.write(`${exposure}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  clusters.close();
  client.close();
}

/**
 * The page has no sign-in of its own: it shows whatever the kubeconfig's user may read to whoever
 * reaches the address. Off loopback it is refused unless asked for (--allow-remote), and then said
 * loudly (the controller's --ui-bind-address signs each user in with their own token instead).
 */
export function exposureWarning(address: string): string | undefined {
  const host = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)) return undefined;
  return (
    `kro ui: WARNING: listening on ${address}: anyone who can reach this address sees everything ` +
    `your kubeconfig's user may read, without signing in. Use the default (127.0.0.1) and an SSH ` +
    `tunnel, or the controller's --ui-bind-address, which signs each user in with their own token.`
  );
}

export function registerUiCommand(program: Command): void {
  program
    .command("ui")
    .description(
      "serve a read-only live web view of RGDs and their instances (counts, filters, each instance's tree and Events), read with your kubeconfig",
    )
    .option("--port <port>", "port to listen on (0: any free port)", "8765")
    .option(
      "--address <address>",
      "address to listen on (loopback by default: the page shows what your credentials can read)",
      "127.0.0.1",
    )
    .option(
      "--allow-remote",
      "allow an --address other than loopback (whoever reaches it sees what your credentials can read)",
    )
    .option("--interval <duration>", "how often the page re-reads the cluster", "2s")
    .option("-l, --selector <labels>", "show only RGDs with these labels")
    .option(
      "-n, --namespace <ns>",
      "show only this namespace's instances and Events (default: every namespace you may list)",
    )
    .option("--kubeconfig <file>", "kubeconfig (default $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("--schema-cache <dir>", "where child kinds' OpenAPI documents are cached (default ~/.cache/kro-ts/openapi)")
    .option(
      "--cluster-namespace <ns>",
      "where member clusters are registered (the controller's --cluster-namespace): children placed in them are read there, if you may read their registrations",
      USUAL_CLUSTER_NAMESPACE,
    )
    .addHelpText(
      "after",
      `
What the page shows is what your kubeconfig's user may read: a list or get the API server refuses
is shown as "not permitted" (with the server's message); nothing is read with other rights.
Instances are listed in all namespaces, or in the context's namespace when listing all is refused.`,
    )
    .action(async (flags: UiFlags) => {
      await runUi(flags);
    });
}
