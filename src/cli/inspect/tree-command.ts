/**
 * `kro tree KIND/NAME [-n NS]`: an instance and every child with its live state, reason and what
 * blocks it, nested instances expanded; `-o json|yaml` for machines; `-w` redraws as it changes;
 * `--wait [--timeout]` waits for Ready. The exit status says whether the instance is Ready, so
 * scripts and CI can gate on it. Also `kubectl kro tree …` through the kubectl-kro plugin.
 */
import type { Command } from "commander";
import { toYaml } from "../../api/index.js";
import { createKubeClient } from "../../kube/index.js";
import { registeredClusterClients, USUAL_CLUSTER_NAMESPACE } from "../../controller/index.js";
import { durationFlag, InputError } from "../inputs/index.js";
import { InstanceNotFoundError, TreeReadError, treeHasError, type InstanceTree } from "../../inspect/index.js";
import { formatTree } from "./tree-format.js";
import { createCliTreeReader } from "./tree-live.js";

/** Exit statuses, for scripts: Ready, bad input or not found, not Ready, not Ready with an error. */
export const TREE_EXIT = { ready: 0, invalid: 1, notReady: 2, failed: 3 } as const;

interface TreeFlags {
  readonly namespace?: string;
  readonly output: string;
  readonly watch?: boolean;
  readonly wait?: boolean;
  readonly timeout: string;
  readonly interval: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly schemaCache?: string;
  readonly clusterNamespace: string;
}

export function exitFor(tree: InstanceTree): number {
  if (tree.ready) return TREE_EXIT.ready;
  return treeHasError(tree) ? TREE_EXIT.failed : TREE_EXIT.notReady;
}

function parseTarget(target: string, name: string | undefined): { kind: string; name: string } {
  const slash = target.indexOf("/");
  if (slash > 0 && name === undefined && slash < target.length - 1)
    return { kind: target.slice(0, slash), name: target.slice(slash + 1) };
  if (slash < 0 && name !== undefined && name !== "") return { kind: target, name };
  throw new InputError(
    `expected KIND/NAME (or KIND NAME), got "${[target, name].filter((p) => p !== undefined).join(" ")}"`,
  );
}

function render(tree: InstanceTree, output: string): string {
  if (output === "json") return `${JSON.stringify(tree, null, 2)}\n`;
  if (output === "yaml") return toYaml(tree);
  return formatTree(tree, Date.now());
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function runTree(target: string, extraName: string | undefined, flags: TreeFlags): Promise<number> {
  if (!["text", "json", "yaml"].includes(flags.output))
    throw new InputError(`unknown output format "${flags.output}": use text, json or yaml`);
  const timeoutMs = durationFlag("--timeout", flags.timeout);
  const intervalMs = durationFlag("--interval", flags.interval);
  const { kind: typedKind, name } = parseTarget(target, extraName);
  const client = await createKubeClient({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    env: process.env,
    maxRetries: 1,
  });
  const clusters = registeredClusterClients(client, flags.clusterNamespace);
  try {
    const reader = await createCliTreeReader(
      client,
      { kubeconfig: flags.kubeconfig, context: flags.context, cacheDir: flags.schemaCache },
      clusters,
    );
    const { apiVersion, kind, namespaced } = await reader.resolveKind(typedKind);
    const namespace = namespaced ? (flags.namespace ?? client.defaultNamespace) : undefined;
    const deadline = Date.now() + timeoutMs;
    const interactive = flags.watch === true && flags.output === "text" && process.stdout.isTTY;
    let shown = "";
    let drawn = 0;
    const interrupted = { stop: false };
    const onSignal = (): void => {
      interrupted.stop = true;
    };
    process.once("SIGINT", onSignal);
    try {
      for (;;) {
        const tree = await reader.read(apiVersion, kind, namespace, name);
        const text = render(tree, flags.output);
        const waiting = flags.wait === true && !tree.ready && Date.now() < deadline;
        const keepWatching = flags.watch === true && !(flags.wait === true && (tree.ready || Date.now() >= deadline));
        // Without -w only the final picture is printed; with -w every change, in place on a terminal.
        // In a pipe a change is a change of the tree, not of the text: the AGE column alone would
        // print a new block every second.
        const key = interactive ? text : JSON.stringify(tree);
        if (flags.watch === true && key !== shown) {
          if (interactive && drawn > 0) process.stdout.write(`\x1b[${drawn}A\x1b[0J`);
          else if (shown !== "" && flags.output === "text") process.stdout.write(`--- ${new Date().toISOString()}\n`);
          process.stdout.write(text);
          shown = key;
          drawn = text.split("\n").length - 1;
        }
        if (interrupted.stop || (!waiting && !keepWatching)) {
          if (flags.watch !== true) process.stdout.write(text);
          if (flags.wait === true && !tree.ready)
            process.stderr.write(
              `kro tree: ${kind}/${name} is not Ready after ${flags.timeout}: ${[tree.reason, tree.message].filter((t) => t !== "").join(": ")}\n`,
            );
          return exitFor(tree);
        }
        await sleep(flags.wait === true ? Math.min(intervalMs, Math.max(0, deadline - Date.now())) : intervalMs);
        // Reading again also picks up a child that turned into an instance since.
      }
    } finally {
      process.off("SIGINT", onSignal);
    }
  } catch (error) {
    if (error instanceof InstanceNotFoundError || error instanceof TreeReadError || error instanceof InputError) {
      process.stderr.write(`kro tree: error: ${error.message}\n`);
      return TREE_EXIT.invalid;
    }
    throw error;
  } finally {
    clusters.close();
    client.close();
  }
}

export function registerTreeCommand(program: Command): void {
  program
    .command("tree")
    .description(
      "show an instance and every child with its live state, reason and what blocks it (nested instances expanded)",
    )
    .argument("<KIND/NAME>", "the instance: kind, plural or KIND.GROUP, a slash, its name (or KIND NAME)")
    .argument("[NAME]")
    .option("-n, --namespace <ns>", "namespace of the instance (default: the kubeconfig context's)")
    .option("-o, --output <format>", "text, json or yaml", "text")
    .option("-w, --watch", "keep watching: redraw the tree whenever it changes (Ctrl-C to stop)")
    .option("--wait", "wait until the instance is Ready (or --timeout passes); the exit status says which")
    .option("--timeout <duration>", "how long --wait waits", "2m")
    .option("--interval <duration>", "how often -w and --wait re-read the cluster", "1s")
    .option("--kubeconfig <file>", "kubeconfig (default $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("--schema-cache <dir>", "where child kinds' OpenAPI documents are cached (default ~/.cache/kro-ts/openapi)")
    .option(
      "--cluster-namespace <ns>",
      "where member clusters are registered in this cluster (the controller's --cluster-namespace): children placed in them are read there, with the credentials registered for them if you may read those",
      USUAL_CLUSTER_NAMESPACE,
    )
    .addHelpText(
      "after",
      `
States per resource: ready, waiting for readiness (its readyWhen is not true yet: the expression is
shown), waiting on dependency (which ones, or the missing field), excluded (includeWhen is false),
error (the controller's or the evaluation's message), deleting, unknown (it lives in a member
cluster that cannot be read from here: its registration is not readable with your rights, or the
cluster is unreachable).

Exit status:
  0  the instance is Ready (its Ready condition is True for its current generation)
  1  bad arguments, no such kind or instance, cluster unreachable
  2  not Ready (still in progress; with --wait: not Ready when --timeout passed)
  3  not Ready and a resource (or a nested instance) reports an error`,
    )
    .action(async (target: string, extraName: string | undefined, flags: TreeFlags) => {
      process.exitCode = await runTree(target, extraName, flags);
    });
}
