/**
 * `kro validate` and `kro generate crd`: the compiler, offline, on files. Diagnostics point at
 * file:line:column with the source line; the exit code is 1 when any error was found.
 */
import type { Command } from "commander";
import { ANNOTATIONS, formatLocated, toYaml, type LoadedFile, type LocatedIssue } from "../../api/index.js";
import { formatPath, hasErrors } from "../../diag/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import {
  compileRgd,
  containmentPolicyOf,
  delegationAuthorOf,
  type CompileRgdOptions,
  type CompiledGraph,
  type ContainmentPolicy,
  type SchemaResolver,
} from "../../graph/index.js";
import { DEFAULT_KUBE_MINOR } from "../../localcluster/index.js";
import { InputError, childApiVersions, isKind, loadFiles, locate, schemaResolverFor } from "../inputs/index.js";
import { clusterDryRuns } from "./cluster-dry-run.js";
import { liveSchemaResolver } from "./live-schemas.js";
import { printTemplateDialectCrd } from "./template-crd.js";

export interface CompiledFile {
  readonly located: LocatedIssue[];
  readonly graphs: CompiledGraph[];
  /** The author-check settings of each graph's RGD (same order as graphs). */
  readonly policies?: ContainmentPolicy[];
  /** Who each graph's RGD records as the writer of its delegation (same order). */
  readonly authors?: ({ user: string; groups: readonly string[] } | undefined)[];
}

/** The flags every compiling command shares (see withSchemaSources). */
export interface SchemaSourceFlags {
  readonly crd?: string[];
  readonly kubeVersion: string;
  readonly cluster?: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly schemaCache?: string;
  /** validate --strict: a child kind no schema source knows is an error. */
  readonly strict?: boolean;
}

/**
 * The schema sources the flags name: the built-in schemas of --kube-version, --crd files and, with
 * --cluster, the live cluster's schemas of these group-versions ("all": every one it publishes).
 */
export async function resolverFromFlags(
  flags: SchemaSourceFlags,
  apiVersions: readonly string[] | "all",
): Promise<SchemaResolver> {
  const live =
    flags.cluster === true
      ? (
          await liveSchemaResolver(apiVersions, {
            kubeconfig: flags.kubeconfig,
            context: flags.context,
            cacheDir: flags.schemaCache,
          })
        ).resolver
      : undefined;
  return schemaResolverFor(flags.kubeVersion, flags.crd ?? [], live);
}

export async function compileFiles(
  files: readonly string[],
  flags: SchemaSourceFlags,
): Promise<{ loaded: LoadedFile[]; results: CompiledFile[] }> {
  const loaded = await loadFiles(files);
  const resolver = await resolverFromFlags(flags, childApiVersions(loaded.flatMap((f) => f.documents)));
  const env = createKroCelEnvironment({ enableRuntime: true });
  // Offline a kind without a schema may be a CRD we cannot see: a warning, unless --strict. With
  // --cluster the live discovery knows every kind, so an unknown one is an error (as in kro).
  const unknownKinds = flags.strict === true || flags.cluster === true ? "error" : "warn";
  const results = loaded.map((file) => compileLoadedFile(file, { resolver, env, unknownKinds }));
  return { loaded, results };
}

/**
 * One file already read and parsed: its YAML problems and warnings, then every RGD in it compiled
 * with `options`. What `kro validate` prints for a file on disk, and what `kro lsp` shows for an
 * editor's unsaved text; both go through here, so the two never disagree.
 */
export function compileLoadedFile(file: LoadedFile, options: CompileRgdOptions): CompiledFile {
  const located: LocatedIssue[] = [...file.problems, ...file.warnings];
  const graphs: CompiledGraph[] = [];
  const policies: ContainmentPolicy[] = [];
  const authors: ({ user: string; groups: readonly string[] } | undefined)[] = [];
  const rgds = file.documents.filter((d) => isKind(d, "ResourceGraphDefinition"));
  if (rgds.length === 0 && file.problems.length === 0) {
    located.push({
      file: file.file,
      issue: {
        severity: "error",
        code: "cli.no-rgd",
        path: [],
        message: "no ResourceGraphDefinition found in this file",
      },
    });
  }
  for (const document of rgds) {
    const result = compileRgd(document.value, options);
    located.push(...result.issues.map((issue) => locate(document, issue)));
    if (result.graph) {
      graphs.push(result.graph);
      policies.push(containmentPolicyOf(document.value));
      authors.push(delegationAuthorOf(document.value));
    }
  }
  return { located, graphs, policies, authors };
}

/** Who the delegation will be verified against, and what the writer must record (docs/design/authorization.md, "Delegation"). */
function verifiedAgainst(author: { user: string; groups: readonly string[] } | undefined): string {
  const recorded =
    author === undefined
      ? `no ${ANNOTATIONS.delegatedBy} is recorded yet: whoever applies it must add ${ANNOTATIONS.delegatedBy}: <their user> (and ${ANNOTATIONS.delegatedGroups}: <their groups>), or the cluster refuses it`
      : `recorded author ${author.user}${author.groups.length === 0 ? "" : ` (groups ${author.groups.join(",")})`}, which the cluster admits only from that user`;
  return `; it holds only if its recorded author holds these rights (the controller verifies with SubjectAccessReviews; ${recorded})`;
}

/** What the RGD lets instance authors cause beyond their own rights (docs/design/authorization.md). */
export function delegationText(
  graph: CompiledGraph,
  policy: ContainmentPolicy,
  author?: { user: string; groups: readonly string[] },
): string {
  if (!policy.authorCheck)
    return `author check Disabled (kro.run/author-check): every instance author is trusted with the controller's rights${verifiedAgainst(author)}`;
  const kinds = new Map(graph.nodes.map((n) => [n.id, n.kind]));
  const exempt = policy.authorCheckExempt.map((id) => `${id} (${kinds.get(id) ?? "no such resource"})`);
  if (exempt.length === 0) return "delegates nothing: instance authors need every right themselves";
  return `delegates to instance authors the creation, update and deletion of ${exempt.join(", ")} without their own rights (kro.run/author-check-exempt); adopting existing objects is never delegated${verifiedAgainst(author)}`;
}

export function printDiagnostics(loaded: readonly LoadedFile[], results: readonly CompiledFile[]): void {
  results.forEach((result, index) => {
    for (const located of result.located) process.stderr.write(`${formatLocated(located, loaded[index]?.text)}\n`);
  });
}

/** Where the compiler learns child kinds: the built-in schemas of a version, plus CRD files. */
export function withSchemaSources(command: Command): Command {
  return command
    .option("--crd <file...>", "CRD files that define child kinds not built into Kubernetes")
    .option(
      "--kube-version <version>",
      "Kubernetes version whose built-in schemas to check against",
      DEFAULT_KUBE_MINOR,
    )
    .option(
      "--cluster",
      "also read child kinds' schemas from the live cluster's OpenAPI v3 (cached on disk); validate also sends each RGD, CRD and generated CRD as a server-side dry run and reports what the API server refuses",
    )
    .option("--kubeconfig <file>", "kubeconfig for --cluster (default $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context for --cluster")
    .option("--schema-cache <dir>", "where --cluster caches OpenAPI documents (default ~/.cache/kro-ts/openapi)");
}

export function registerCompileCommands(program: Command): void {
  withSchemaSources(program.command("validate"))
    .description("compile ResourceGraphDefinitions offline and report every problem with file:line:column")
    .requiredOption("-f, --filename <file...>", "RGD files (YAML, several documents allowed)")
    .option("-o, --output <format>", "text or json", "text")
    .option(
      "--strict",
      "a child kind whose schema is unknown (not built in, no --crd, not on --cluster) is an error, not a warning",
    )
    .action(async (flags: SchemaSourceFlags & { filename: string[]; output: string }) => {
      const { loaded, results } = await compileFiles(flags.filename, flags);
      // With --cluster, what compiled is also put to the API server (dry runs), before anything is written.
      const compiled = !hasErrors(results.flatMap((r) => r.located.map((l) => l.issue)));
      const refusedIn = new Set<string>();
      const graphs = results.flatMap((r) => r.graphs);
      for (const issue of flags.cluster === true && compiled ? await clusterDryRuns(loaded, graphs, flags) : []) {
        results[loaded.findIndex((f) => f.file === issue.file)]?.located.push(issue);
        refusedIn.add(issue.file);
      }
      const all = results.flatMap((r) => r.located);
      if (flags.output === "json") {
        process.stdout.write(
          `${JSON.stringify(
            all.map((l) => ({
              file: l.file,
              line: l.position?.line,
              column: l.position?.column,
              severity: l.issue.severity,
              code: l.issue.code,
              path: formatPath(l.issue.path),
              message: l.issue.message,
              ...(l.hint === undefined ? {} : { hint: l.hint }),
            })),
            null,
            2,
          )}\n`,
        );
      } else {
        printDiagnostics(loaded, results);
        for (const [index, result] of results.entries()) {
          if (refusedIn.has(loaded[index]?.file ?? "")) continue;
          result.graphs.forEach((graph, i) => {
            const dialect =
              graph.dialect === "template"
                ? `; template dialect: attaches to the existing CRD for ${graph.instance.kind}.${graph.instance.group}/${graph.instance.version}`
                : "";
            process.stdout.write(
              `${graph.name}: valid (${graph.instance.kind}.${graph.instance.group}, ${graph.nodes.length} resources: ${graph.topologicalOrder.join(" → ")}${dialect})\n`,
            );
            const policy = result.policies?.[i];
            // Only when the RGD lets instance authors cause more than their own rights allow.
            if (policy !== undefined && (!policy.authorCheck || policy.authorCheckExempt.length > 0))
              process.stdout.write(`${graph.name}: ${delegationText(graph, policy, result.authors?.[i])}\n`);
          });
        }
      }
      if (hasErrors(all.map((l) => l.issue))) process.exitCode = 1;
    });

  const generate = program.command("generate").description("generate artefacts from an RGD");
  withSchemaSources(generate.command("crd"))
    .description("print the CustomResourceDefinition the controller would install for an RGD")
    .addHelpText(
      "after",
      `
Template-dialect RGDs (spec.resourceKind) attach to your own, existing CRD, so nothing is
generated: without that CRD the command says so and exits 1. Pass it with --crd to print the
status storage (status schema, status subresource) the controller would add to it with
server-side apply, or a note that it needs nothing.
`,
    )
    .requiredOption("-f, --filename <file>", "the RGD file")
    .option("-o, --output <format>", "yaml or json", "yaml")
    .action(async (flags: SchemaSourceFlags & { filename: string; output: string }) => {
      if (flags.output !== "yaml" && flags.output !== "json")
        throw new InputError(`unknown output format "${flags.output}": use yaml or json`);
      const { loaded, results } = await compileFiles([flags.filename], flags);
      const all = results.flatMap((r) => r.located);
      if (hasErrors(all.map((l) => l.issue))) {
        printDiagnostics(loaded, results);
        process.exitCode = 1;
        return;
      }
      const graphs = results.flatMap((r) => r.graphs);
      const [first] = graphs;
      if (graphs.length === 1 && first?.dialect === "template") {
        process.exitCode = await printTemplateDialectCrd(first, flags.crd ?? [], flags.output);
        return;
      }
      const templateGraph = graphs.find((g) => g.dialect === "template");
      if (templateGraph)
        throw new InputError(
          `${templateGraph.name} uses the template dialect and has no generated CRD; run kro generate crd on it alone`,
        );
      const crds = graphs.flatMap((g) => (g.crd ? [g.crd] : []));
      process.stdout.write(
        flags.output === "json"
          ? `${JSON.stringify(crds.length === 1 ? crds[0] : crds, null, 2)}\n`
          : crds.map((c) => toYaml(c)).join("---\n"),
      );
    });
}
