/**
 * `kro dev -f RGD.yaml [-i INSTANCE.yaml…]`: your own RGDs on a throwaway local cluster with the
 * controller in-process, re-applied on every save. `kro demo` (what `npm start` runs): the same
 * with the bundled examples (examples/nginx, template dialect; examples/webapp, CEL dialect).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { DEFAULT_KUBE_MINOR, KUBE_RELEASES } from "../../localcluster/index.js";
import { runDevSession } from "./dev-session.js";
import { MAX_CLUSTERS, parseClusterCount } from "./member-clusters.js";

/** dist/src/cli/ → the package root's examples/, shown relative to the working directory when inside it. */
function example(relative: string): string {
  const absolute = fileURLToPath(new URL(`../../../../examples/${relative}`, import.meta.url));
  const fromCwd = path.relative(process.cwd(), absolute);
  return fromCwd.startsWith("..") || path.isAbsolute(fromCwd) ? absolute : fromCwd;
}

export const DEMO_FILES = {
  files: [example("nginx/nginxapp-crd.yaml"), example("nginx/nginxapp-rgd.yaml"), example("webapp/webapp-rgd.yaml")],
  instanceFiles: [example("nginx/my-nginx.yaml"), example("webapp/demo.yaml")],
} as const;

/** What `kro demo --clusters 3` adds: one app in two regions (examples/multicluster). */
export const MULTICLUSTER_DEMO_FILES = {
  files: [example("multicluster/regional-app-rgd.yaml")],
  instanceFiles: [example("multicluster/regional-app.yaml")],
} as const;
/** The example reaches eu-west and us-east: the hub and those two. */
const MULTICLUSTER_DEMO_CLUSTERS = 3;

interface DevFlags {
  readonly filename: string[];
  readonly instance?: string[];
  readonly watch: boolean;
  readonly kubeVersion: string;
  readonly kubeconfig?: string;
  readonly minimal?: boolean;
  readonly clusters?: string;
}

const KUBE_VERSION_HELP = `Kubernetes version of the local cluster: ${KUBE_RELEASES.map((r) => r.minor).join(", ")}`;
const CLUSTERS_HELP = `the hub plus n−1 minimal member clusters (eu-west, us-east, …), registered for \`cluster:\` targets; 1 to ${MAX_CLUSTERS}`;

export function registerDevCommands(program: Command): void {
  program
    .command("dev")
    .description(
      "run your RGDs on a local cluster with the controller in-process; re-apply on save, show each instance converge",
    )
    .requiredOption("-f, --filename <file...>", "RGD files (and any CRDs or other objects they need)")
    .option("-i, --instance <file...>", "instance files, applied once their kind is served")
    .option("--no-watch", "do not re-apply when the files change")
    .option("--minimal", "only etcd and kube-apiserver: starts faster, but nothing runs Deployments or pods")
    .option("--kube-version <version>", KUBE_VERSION_HELP, DEFAULT_KUBE_MINOR)
    .option("--kubeconfig <file>", "also write the admin kubeconfig to this file (deleted again on exit)")
    .option("--clusters <n>", CLUSTERS_HELP, "1")
    .action(async (flags: DevFlags) => {
      await runDevSession({
        files: flags.filename,
        instanceFiles: flags.instance ?? [],
        watch: flags.watch,
        kubeVersion: flags.kubeVersion,
        subject: "instances",
        minimal: flags.minimal === true,
        clusters: parseClusterCount(flags.clusters),
        ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
      });
    });
  program
    .command("demo")
    .description(
      "what `npm start` runs: a local cluster, the controller, the bundled examples (nginx, webapp) converging live",
    )
    .option("--kube-version <version>", KUBE_VERSION_HELP, DEFAULT_KUBE_MINOR)
    .option("--kubeconfig <file>", "also write the admin kubeconfig to this file (deleted again on exit)")
    .option(
      "--clusters <n>",
      `${CLUSTERS_HELP}; with ${MULTICLUSTER_DEMO_CLUSTERS} or more, the multi-cluster example (one app, two regions) runs too`,
      "1",
    )
    .action(async (flags: Omit<DevFlags, "filename" | "watch" | "minimal">) => {
      const clusters = parseClusterCount(flags.clusters);
      const multi = clusters >= MULTICLUSTER_DEMO_CLUSTERS;
      await runDevSession({
        files: [...DEMO_FILES.files, ...(multi ? MULTICLUSTER_DEMO_FILES.files : [])],
        instanceFiles: [...DEMO_FILES.instanceFiles, ...(multi ? MULTICLUSTER_DEMO_FILES.instanceFiles : [])],
        clusters,
        watch: false,
        kubeVersion: flags.kubeVersion,
        subject: "examples",
        ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
      });
    });
}
