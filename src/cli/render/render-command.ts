/**
 * `kro render`: what the controller would apply for one instance, computed offline the way
 * `helm template` renders a chart. Objects go to stdout in apply order, then the instance with the
 * status kro would write; what cannot be rendered without a cluster is named on stderr.
 */
import type { Command } from "commander";
import { formatLocated, toYaml, type LoadedFile, type LocatedIssue, type SourceDocument } from "../../api/index.js";
import { hasErrors } from "../../diag/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, crdDefines, type CompiledGraph, type SchemaResolver } from "../../graph/index.js";
import type { CustomResourceDefinition } from "../../schema/index.js";
import { DEFAULT_KUBE_MINOR } from "../../localcluster/index.js";
import {
  applySchemaDefaults,
  renderInstance,
  validateInstance,
  type KubeJson,
  type NodeEvaluation,
} from "../../runtime/index.js";
import { InputError, isKind, loadFiles, locate, schemaResolverFor } from "../inputs/index.js";
import { PACKAGE_VERSION } from "../version.js";
import { convertInstance } from "./instance-versions.js";
import { renderedTypeErrors } from "./rendered-types.js";

export const RENDER_EXIT = { rendered: 0, invalid: 1, pending: 2 } as const;

interface RenderFlags {
  filename: string;
  instance: string;
  observed?: string[];
  assumeReady?: boolean;
  output: string;
  crd?: string[];
  kubeVersion: string;
}

function report(located: readonly LocatedIssue[], files: readonly LoadedFile[]): void {
  for (const l of located) process.stderr.write(`${formatLocated(l, files.find((f) => f.file === l.file)?.text)}\n`);
}

/** The one RGD of the file, compiled; diagnostics printed and undefined when it does not compile. */
async function compileOne(
  flags: RenderFlags,
): Promise<{ graph: CompiledGraph | undefined; resolver: SchemaResolver } | undefined> {
  const resolver = await schemaResolverFor(flags.kubeVersion, flags.crd ?? []);
  const [file] = await loadFiles([flags.filename]);
  if (file === undefined) return undefined;
  const documents = file.documents.filter((d) => isKind(d, "ResourceGraphDefinition"));
  const [document] = documents;
  if (file.problems.length > 0 || document === undefined) {
    report(
      file.problems.length > 0
        ? file.problems
        : [
            {
              file: file.file,
              issue: {
                severity: "error",
                code: "cli.no-rgd",
                path: [],
                message: "no ResourceGraphDefinition found in this file",
              },
            },
          ],
      [file],
    );
    return undefined;
  }
  if (documents.length > 1)
    throw new InputError(`${file.file} holds ${documents.length} ResourceGraphDefinitions; render takes one`);
  const result = compileRgd(document.value, { resolver, env: createKroCelEnvironment({ enableRuntime: true }) });
  const errors = result.issues.filter((i) => i.severity === "error");
  report(
    errors.map((i) => locate(document, i)),
    [file],
  );
  return hasErrors(result.issues) ? undefined : { graph: result.graph, resolver };
}

/** The instance document (the only one, or the one of the graph's kind), defaulted and validated. */
/**
 * The instance's CRD: generated for the CEL dialect; for the template dialect the user's own,
 * taken from the --crd files when given (without it the instance is used as written).
 */
async function instanceCrd(
  graph: CompiledGraph,
  crdFiles: readonly string[],
): Promise<CustomResourceDefinition | undefined> {
  if (graph.dialect === "cel") return graph.crd;
  const crds = (await loadFiles(crdFiles)).flatMap((f) => f.documents.map((d) => d.value));
  const crd = crds.find((c) => crdDefines(c, graph.instance));
  if (crd === undefined) {
    process.stderr.write(
      `kro render: note: ${graph.name} attaches to your CRD for ${graph.instance.kind}.${graph.instance.group}; pass it with --crd to apply its defaults and validation to the instance\n`,
    );
  }
  return crd as CustomResourceDefinition | undefined;
}

/** Like `kubectl apply`, a namespaced instance written without a namespace lands in "default". */
function inDefaultNamespace(instance: KubeJson, scope: string): KubeJson {
  const metadata =
    typeof instance.metadata === "object" && instance.metadata !== null ? (instance.metadata as KubeJson) : {};
  if (scope !== "Namespaced" || (typeof metadata.namespace === "string" && metadata.namespace !== "")) return instance;
  return { ...instance, metadata: { ...metadata, namespace: "default" } };
}

async function loadInstance(
  file: string,
  graph: CompiledGraph,
  crdFiles: readonly string[],
): Promise<KubeJson | undefined> {
  const [loaded] = await loadFiles([file]);
  if (loaded === undefined) return undefined;
  if (loaded.problems.length > 0) {
    report(loaded.problems, [loaded]);
    return undefined;
  }
  const candidates: SourceDocument[] = loaded.documents.filter((d) => isKind(d, graph.instance.kind));
  const [document] = candidates.length > 0 ? candidates : loaded.documents;
  if (document === undefined || typeof document.value !== "object" || document.value === null)
    throw new InputError(`${file}: no ${graph.instance.kind} instance found`);
  const crd = await instanceCrd(graph, crdFiles);
  const written = inDefaultNamespace(
    document.value as KubeJson,
    crd?.spec.scope ?? (graph.dialect === "cel" ? graph.instance.scope : "Namespaced"),
  );
  if (crd === undefined) return written;
  const instance = applySchemaDefaults(crd, written);
  const issues = validateInstance(crd, instance);
  if (issues.length === 0) return instance;
  const metadata = instance.metadata;
  const name =
    typeof metadata === "object" && metadata !== null && "name" in metadata && typeof metadata.name === "string"
      ? metadata.name
      : "";
  process.stderr.write(`The ${graph.instance.kind} "${name}" is invalid:\n`);
  report(
    issues.map((i) => locate(document, i)),
    [loaded],
  );
  return undefined;
}

/** The observed objects; undefined (problems printed once) when a file does not parse. */
async function loadObserved(files: readonly string[]): Promise<KubeJson[] | undefined> {
  const loaded = await loadFiles(files);
  const broken = loaded.filter((f) => f.problems.length > 0);
  if (broken.length > 0) {
    report(
      broken.flatMap((f) => f.problems),
      broken,
    );
    return undefined;
  }
  // A `kind: List` (kubectl get -o yaml) contributes its items.
  return loaded
    .flatMap((f) => f.documents.map((d) => d.value))
    .flatMap((v) => {
      if (typeof v !== "object" || v === null) return [];
      const object = v as KubeJson;
      return object.kind === "List" && Array.isArray(object.items) ? (object.items as KubeJson[]) : [object];
    });
}

function describePending(node: NodeEvaluation): string {
  const pending = node.pending;
  if (pending === undefined) return `${node.id}: ${node.state}`;
  const missing = pending.missingPath === undefined ? "" : ` [missing: ${pending.missingPath}]`;
  return `${node.id}: ${pending.message}${missing}`;
}

async function render(flags: RenderFlags): Promise<number> {
  if (flags.output !== "yaml" && flags.output !== "json")
    throw new InputError(`unknown output format "${flags.output}": use yaml or json`);
  const compiled = await compileOne(flags);
  const graph = compiled?.graph;
  if (compiled === undefined || graph === undefined) return RENDER_EXIT.invalid;
  const instance = await loadInstance(flags.instance, graph, flags.crd ?? []);
  if (instance === undefined) return RENDER_EXIT.invalid;
  const observed = await loadObserved(flags.observed ?? []);
  if (observed === undefined) return RENDER_EXIT.invalid;
  // Written at any served version: the graph reads it at the hub, as the controller does.
  const atHub = convertInstance(graph, instance);
  if (!atHub.ok) {
    process.stderr.write(`kro render: error: ${flags.instance}: ${atHub.message}\n`);
    return RENDER_EXIT.invalid;
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const result = renderInstance(graph, atHub.object, {
    observed,
    now,
    kroVersion: PACKAGE_VERSION,
    assumeReady: flags.assumeReady === true,
  });
  if (result.evaluation.error !== undefined) {
    process.stderr.write(`kro render: error: ${result.evaluation.error}\n`);
    return RENDER_EXIT.invalid;
  }
  // The CEL dialect type-checks its templates when it compiles; Go templates produce text, so their
  // output is checked here, where kubectl apply would refuse it.
  const mistyped = graph.dialect === "template" ? renderedTypeErrors(result.evaluation.apply, compiled.resolver) : [];
  for (const message of mistyped) process.stderr.write(`kro render: error: ${message}\n`);
  if (mistyped.length > 0) return RENDER_EXIT.invalid;
  const documents: KubeJson[] = [...result.evaluation.apply, { ...instance, status: result.status }];
  process.stdout.write(
    flags.output === "json"
      ? `${JSON.stringify({ apiVersion: "v1", kind: "List", items: documents }, null, 2)}\n`
      : documents.map((d) => toYaml(d)).join("---\n"),
  );
  for (const node of result.unrendered) process.stderr.write(`kro render: not rendered: ${describePending(node)}\n`);
  for (const field of result.pendingStatus)
    process.stderr.write(
      `kro render: status field not set: ${field.path}: waiting for ${field.missingPath ?? "data"} (${field.message})\n`,
    );
  const waiting = result.evaluation.nodes.filter((n) => n.pending?.kind === "readiness");
  for (const node of waiting) process.stderr.write(`kro render: rendered, not ready: ${describePending(node)}\n`);
  return result.unrendered.length > 0 ? RENDER_EXIT.pending : RENDER_EXIT.rendered;
}

export function registerRenderCommand(program: Command): void {
  program
    .command("render")
    .description(
      "print every object the controller would apply for an instance (apply order), then the status it would write; no cluster needed",
    )
    .requiredOption("-f, --filename <file>", "the RGD file")
    .requiredOption("-i, --instance <file>", "the instance (a custom resource of the RGD's kind)")
    .option(
      "--observed <file...>",
      "live objects (YAML, kind: List allowed) standing in for the cluster, to continue past cluster-provided data",
    )
    .option("--assume-ready", "treat every dependency as ready and observed as its own desired object")
    .option("-o, --output <format>", "yaml (multi-document) or json (a v1 List)", "yaml")
    .option(
      "--crd <file...>",
      "CRD files that define child kinds not built into Kubernetes (template dialect: also the parent kind's CRD, for defaults and validation)",
    )
    .option(
      "--kube-version <version>",
      "Kubernetes version whose built-in schemas to check against",
      DEFAULT_KUBE_MINOR,
    )
    .addHelpText(
      "after",
      `
Exit codes:
  0  every resource rendered
  1  invalid input: the RGD does not compile, the instance fails the generated CRD's schema,
     or an expression fails for this instance
  2  rendered, but some resources wait on data only the cluster can provide (listed on stderr
     with the missing path); supply it with --observed or use --assume-ready`,
    )
    .action(async (flags: RenderFlags) => {
      process.exitCode = await render(flags);
    });
}
