/**
 * `kro diff -f rgd.yaml`: what applying a changed RGD would do to every existing instance —
 * objects created, changed (field by field), deleted or left alone by our ownership rules — and
 * whether the breaking-change gate would refuse its CRD. `kro diff -i instance.yaml`: the same for
 * one instance change, against the RGD served now (or, with -f, against the new one). Every write
 * is a server-side dry-run: nothing is stored. The exit status follows diff(1): 0 same, 1
 * different, 2 trouble; 3 when applying would be refused or fail.
 */
import type { Command } from "commander";
import { KRO_API_VERSION, LABELS, RGD, toYaml } from "../../api/index.js";
import { createKubeClient, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { KubeJson, RuntimeOptions } from "../../runtime/index.js";
import { DEFAULT_KUBE_MINOR } from "../../localcluster/index.js";
import { previewKey, previewWaves } from "../../controller/index.js";
import { jsonChanges } from "./diff-fields.js";
import { formatReport } from "./diff-format.js";
import { DIFF_EXIT, exitForReport, summarize, type CrdDiff, type DiffReport, type InstanceDiff } from "./diff-model.js";
import { previewInstance } from "./diff-preview.js";
import {
  asGraphReads,
  compileNewRgd,
  DiffTrouble,
  INSTANCE_DRY_RUN_MANAGER,
  loadInstanceFile,
  previewCrd,
  previewRgdWrite,
  readRgd,
  servedInstances,
  servingGraph,
  type NewRgd,
} from "./diff-targets.js";
import { InputError } from "../inputs/index.js";
import { apiVersionOf, servedKind } from "../inspect/index.js";
import { PACKAGE_VERSION } from "../version.js";

interface DiffFlags {
  readonly filename?: string;
  readonly instance?: string;
  readonly namespace?: string;
  readonly output: string;
  readonly concurrency: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly schemaCache?: string;
  readonly crd?: string[];
  readonly kubeVersion: string;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** As the controller runs it: its version on children, and nested instances wait for Ready. */
async function runtimeOptions(client: KubeClient): Promise<(instance: KubeObject) => RuntimeOptions> {
  const rgds = (await client.list(KRO_API_VERSION, RGD.kind)).items;
  const served = new Set(
    rgds.flatMap((r) => {
      const s = servedKind(r);
      return s === undefined ? [] : [`${apiVersionOf(s.group, s.version)}/${s.kind}`];
    }),
  );
  return (instance) => ({
    kroVersion: instance.metadata?.labels?.[LABELS.kroVersion] ?? PACKAGE_VERSION,
    awaitsReady: (apiVersion, kind) => served.has(`${apiVersion}/${kind}`),
  });
}

async function mapPool<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i] as T);
    }),
  );
  return out;
}

async function previewStored(
  client: KubeClient,
  target: NewRgd,
  instance: KubeObject,
  options: RuntimeOptions,
): Promise<InstanceDiff> {
  const reads = asGraphReads(target.graph, instance);
  if (!reads.ok) {
    const m = instance.metadata ?? {};
    return {
      apiVersion: String(instance.apiVersion),
      kind: String(instance.kind),
      name: m.name ?? "",
      ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
      objects: [],
      error: reads.message,
    };
  }
  return previewInstance(client, target.graph, reads.instance, options);
}

/** -i: the instance file dry-run applied (its own changes), then previewed under the graph. */
async function previewInstanceFile(
  client: KubeClient,
  target: NewRgd,
  written: KubeObject,
  flags: DiffFlags,
  options: (i: KubeObject) => RuntimeOptions,
): Promise<InstanceDiff> {
  const scope = target.graph.dialect === "cel" ? target.graph.instance.scope : "Namespaced";
  const namespace =
    scope === "Namespaced" ? (written.metadata?.namespace ?? flags.namespace ?? client.defaultNamespace) : undefined;
  const instance: KubeObject = {
    ...written,
    metadata: { ...written.metadata, ...(namespace === undefined ? {} : { namespace }) },
  };
  const head = {
    apiVersion: String(instance.apiVersion),
    kind: String(instance.kind),
    name: instance.metadata?.name ?? "",
    ...(namespace === undefined ? {} : { namespace }),
  };
  let live: KubeObject | undefined;
  try {
    live = await client.get({
      apiVersion: head.apiVersion,
      kind: head.kind,
      name: head.name,
      ...(namespace === undefined ? {} : { namespace }),
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  let answer: KubeObject;
  try {
    answer = await client.apply(instance, { fieldManager: INSTANCE_DRY_RUN_MANAGER, force: true, dryRun: true });
  } catch (error) {
    return { ...head, objects: [], error: `the API server refuses the instance: ${message(error)}` };
  }
  const own = (o: KubeObject | undefined): KubeJson => ({
    metadata: { labels: o?.metadata?.labels ?? {}, annotations: o?.metadata?.annotations ?? {} },
    spec: (o as KubeJson | undefined)?.spec ?? {},
  });
  const fields = live === undefined ? [] : jsonChanges(own(live), own(answer));
  const diff = await previewStored(client, target, answer, options(answer));
  return {
    ...diff,
    instance: { action: live === undefined ? "create" : fields.length === 0 ? "unchanged" : "update", fields },
  };
}

/**
 * Under spec.rollout, each instance's wave for the revision this change would issue (the next
 * after the live RGD's last), as the controller's planner would assign it.
 */
function withWaves(
  diffs: InstanceDiff[],
  target: NewRgd,
  items: readonly KubeObject[],
  liveRgd: KubeObject | undefined,
): InstanceDiff[] {
  const policy = target.graph.rollout;
  if (policy === undefined) return diffs;
  const issued = (liveRgd?.status as { lastIssuedRevision?: unknown } | undefined)?.lastIssuedRevision;
  const next = (Number.isSafeInteger(issued) ? (issued as number) : 0) + 1;
  const waves = previewWaves(policy, target.rgd.metadata?.name ?? "", items, next);
  return diffs.map((diff) => {
    const metadata = { name: diff.name, ...(diff.namespace === undefined ? {} : { namespace: diff.namespace }) };
    const rollout = waves.get(previewKey({ metadata }));
    return rollout === undefined ? diff : { ...diff, rollout };
  });
}

async function buildReport(client: KubeClient, flags: DiffFlags): Promise<DiffReport> {
  const width = Number(flags.concurrency);
  if (!Number.isInteger(width) || width < 1)
    throw new InputError(`--concurrency must be a positive integer, got "${flags.concurrency}"`);
  const written = flags.instance === undefined ? undefined : await loadInstanceFile(flags.instance);
  const options = await runtimeOptions(client);
  const notes: string[] = [];
  let target: NewRgd;
  let crd: CrdDiff | undefined;
  let rgdRefused: string | undefined;
  let instances: InstanceDiff[];
  if (flags.filename !== undefined) {
    target = await compileNewRgd(flags.filename, flags);
    const name = target.rgd.metadata?.name ?? "";
    const liveRgd = await readRgd(client, name);
    // The RGD first: one the API server refuses never reaches the controller, so nothing else changes.
    rgdRefused = await previewRgdWrite(client, target.rgd);
    crd = rgdRefused === undefined ? await previewCrd(client, target.graph, target.rgd, liveRgd) : undefined;
    if (written !== undefined) {
      instances = [await previewInstanceFile(client, target, written, flags, options)];
    } else {
      const stored = await servedInstances(client, liveRgd);
      if (liveRgd === undefined)
        notes.push(`ResourceGraphDefinition ${name} is not on ${client.server}: it has no instances yet`);
      const { group, kind } = target.graph.instance;
      if (
        stored !== undefined &&
        (stored.kind !== kind || !stored.apiVersion.startsWith(group === "" ? "" : `${group}/`))
      ) {
        notes.push(
          `the RGD now serves ${kind}.${group} instead of ${stored.kind} (${stored.apiVersion}): its ${stored.items.length} existing instances are not previewed`,
        );
        instances = [];
      } else {
        const items = stored?.items ?? [];
        const diffs = await mapPool(items, width, (item) => previewStored(client, target, item, options(item)));
        instances = withWaves(diffs, target, items, liveRgd);
      }
    }
  } else if (written !== undefined) {
    target = await servingGraph(client, written, flags);
    instances = [await previewInstanceFile(client, target, written, flags, options)];
  } else {
    throw new InputError("give the changed RGD (-f rgd.yaml), a changed instance (-i instance.yaml), or both");
  }
  const pending = instances.filter((d) => d.objects.some((o) => o.action === "pending")).length;
  if (pending > 0)
    notes.push(
      `${pending} instance${pending === 1 ? " has" : "s have"} resources that wait on readiness or data: their objects are known once the controller gets there, and nothing of theirs is counted as deleted`,
    );
  return {
    rgd: target.rgd.metadata?.name ?? "",
    instanceKind: `${target.graph.instance.kind} (${apiVersionOf(target.graph.instance.group, target.graph.instance.version)})`,
    ...(rgdRefused === undefined ? {} : { rgdRefused }),
    ...(crd === undefined ? {} : { crd }),
    served: rgdRefused === undefined && crd?.action !== "refused",
    instances,
    summary: summarize(instances),
    notes,
  };
}

async function runDiff(flags: DiffFlags): Promise<number> {
  if (!["text", "json", "yaml"].includes(flags.output)) {
    process.stderr.write(`kro diff: error: unknown output format "${flags.output}": use text, json or yaml\n`);
    return DIFF_EXIT.trouble;
  }
  let client: KubeClient | undefined;
  try {
    client = await createKubeClient({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      env: process.env,
      maxRetries: 1,
    });
    const report = await buildReport(client, flags);
    process.stdout.write(
      flags.output === "json"
        ? `${JSON.stringify(report, null, 2)}\n`
        : flags.output === "yaml"
          ? toYaml(report)
          : formatReport(report),
    );
    return exitForReport(report);
  } catch (error) {
    // Bad input, a file that does not compile, an unreachable cluster: trouble, as diff(1) says.
    process.stderr.write(`kro diff: error: ${message(error)}\n`);
    if (
      !(error instanceof InputError || error instanceof DiffTrouble) &&
      process.env.KRO_DEBUG !== undefined &&
      error instanceof Error
    )
      process.stderr.write(`${error.stack ?? ""}\n`);
    return DIFF_EXIT.trouble;
  } finally {
    client?.close();
  }
}

export function registerDiffCommand(program: Command): void {
  program
    .command("diff")
    .description(
      "preview what applying a changed RGD (-f) or instance (-i) would do on the cluster: objects created, changed field by field, deleted; server-side dry-run, nothing is written",
    )
    .option("-f, --filename <file>", "the changed ResourceGraphDefinition: every existing instance of it is previewed")
    .option(
      "-i, --instance <file>",
      "a changed (or new) instance: previewed against the RGD served now, or the one of -f",
    )
    .option(
      "-n, --namespace <ns>",
      "namespace of the -i instance when the file names none (default: the kubeconfig context's)",
    )
    .option("-o, --output <format>", "text, json or yaml", "text")
    .option("--concurrency <n>", "instances previewed at once", "8")
    .option("--kubeconfig <file>", "kubeconfig (default $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("--schema-cache <dir>", "where child kinds' OpenAPI documents are cached (default ~/.cache/kro-ts/openapi)")
    .option("--crd <file...>", "CRD files for child kinds the cluster does not serve yet")
    .option(
      "--kube-version <version>",
      "Kubernetes version whose built-in schemas back the cluster's",
      DEFAULT_KUBE_MINOR,
    )
    .addHelpText(
      "after",
      `
Each instance is evaluated with the new graph the way the controller would, and every write is
sent as a server-side apply with the controller's field manager and dryRun=All, so defaulting,
validation and admission (webhooks, policies) answer as they would for real. Only fields the
controller owns are compared (status, resourceVersion, managedFields and defaults are not), and a
removal follows the controller's ownership rules: only what it created is deleted; an adopted
object is released; anything not provably ours is reported as "delete-refused" and left alone.
The RGD itself is dry-run too, so one the API server refuses (a changed kind or hub version, an
admission policy) is reported as refused. The CRD is judged as the controller writes it (with its
conversion webhook, for several versions); a CRD change the breaking-change gate refuses is
reported as refused: the controller would keep serving the current graph (annotate the RGD with
kro.run/allow-breaking-changes: "true").

Signs: + created  ~ changed  - deleted/released  ! refused or failing  ? not known yet (pending)

Exit status (diff(1)'s convention):
  0  no changes
  1  changes
  2  trouble: bad arguments or files, the RGD does not compile, the cluster cannot be read
  3  changes, but applying would be refused or fail somewhere (breaking-change gate, the API
     server refuses a write, an object in the way, an instance the new graph cannot evaluate)`,
    )
    .action(async (flags: DiffFlags) => {
      process.exitCode = await runDiff(flags);
    });
}
