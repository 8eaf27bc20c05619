/**
 * What `kro diff` compares, read from files and the cluster: the new RGD compiled offline (with
 * the live cluster's schemas) or the RGD that serves an instance now; the CRD verdict of the
 * breaking-change gate (plus a dry-run of the CRD write); the instances to preview, each at the
 * graph's version and defaulted by the CRD that would serve it. Only get, list and dry-run.
 */
import { ANNOTATIONS, formatLocated, KRO_API_VERSION, LABELS, RGD, type SourceDocument } from "../../api/index.js";
import { crdRef, crdUpdateBody, judgeCrdUpdate } from "../../controller/index.js";
import { formatIssue, hasErrors } from "../../diag/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import { ApiError, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { CustomResourceDefinition, WebhookClientConfig } from "../../schema/index.js";
import { applySchemaDefaults, type KubeJson } from "../../runtime/index.js";
import { compileFiles, printDiagnostics, type SchemaSourceFlags, liveSchemaResolver } from "../compile/index.js";
import type { CrdDiff } from "./diff-model.js";
import { InputError, isKind, loadFiles, schemaResolverFor } from "../inputs/index.js";
import { convertInstance } from "../render/index.js";
import { apiVersionOf, childApiVersionsOf, servedKind } from "../inspect/index.js";
import { PACKAGE_VERSION } from "../version.js";

/** The field manager of `kro diff -i`'s dry-run of the instance itself (never stored). */
export const INSTANCE_DRY_RUN_MANAGER = "kro-diff";

export class DiffTrouble extends Error {
  override readonly name = "DiffTrouble";
}

export interface NewRgd {
  readonly graph: CompiledGraph;
  readonly rgd: KubeObject;
}

/** The file's one RGD, compiled; compile diagnostics go to stderr (file:line:col) and end the run. */
export async function compileNewRgd(file: string, flags: SchemaSourceFlags): Promise<NewRgd> {
  const { loaded, results } = await compileFiles([file], { ...flags, cluster: true });
  const issues = results.flatMap((r) => r.located.map((l) => l.issue));
  if (hasErrors(issues)) {
    printDiagnostics(loaded, results);
    throw new DiffTrouble(`${file} does not compile`);
  }
  const documents: SourceDocument[] = loaded
    .flatMap((f) => f.documents)
    .filter((d) => isKind(d, "ResourceGraphDefinition"));
  const graphs = results.flatMap((r) => r.graphs);
  const [graph] = graphs;
  if (graphs.length !== 1 || graph === undefined || documents.length !== 1)
    throw new InputError(`${file} holds ${documents.length} ResourceGraphDefinitions; kro diff takes one`);
  return { graph, rgd: documents[0]?.value as KubeObject };
}

export async function readRgd(client: KubeClient, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get({ apiVersion: KRO_API_VERSION, kind: RGD.kind, name });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The RGD on the cluster that serves `instance`'s kind, compiled as the controller would. */
export async function servingGraph(
  client: KubeClient,
  instance: KubeJson,
  schema: {
    readonly kubeconfig?: string | undefined;
    readonly context?: string | undefined;
    readonly schemaCache?: string | undefined;
  },
): Promise<NewRgd> {
  const apiVersion = typeof instance.apiVersion === "string" ? instance.apiVersion : "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const rgds = (await client.list(KRO_API_VERSION, RGD.kind)).items;
  const rgd = rgds.find((r) => {
    const served = servedKind(r);
    return served !== undefined && served.group === group && served.kind === instance.kind;
  });
  if (rgd === undefined)
    throw new InputError(
      `no ResourceGraphDefinition on ${client.server} serves ${String(instance.kind)} (${apiVersion})`,
    );
  const live = await liveSchemaResolver(childApiVersionsOf([rgd]), {
    kubeconfig: schema.kubeconfig,
    context: schema.context,
    cacheDir: schema.schemaCache,
  });
  const resolver = await schemaResolverFor(undefined, [], live.resolver);
  const result = compileRgd(rgd, {
    resolver,
    env: createKroCelEnvironment({ enableRuntime: true }),
    unknownKinds: "error",
  });
  if (result.graph === undefined || hasErrors(result.issues)) {
    const first = result.issues.find((i) => i.severity === "error");
    throw new DiffTrouble(
      `ResourceGraphDefinition ${rgd.metadata?.name ?? ""} does not compile here: ${first === undefined ? "unknown error" : formatIssue(first)}`,
    );
  }
  return { graph: result.graph, rgd };
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Why the API server refuses the RGD as written (a server-side dry-run of the apply); undefined: it accepts it. */
export async function previewRgdWrite(client: KubeClient, rgd: KubeObject): Promise<string | undefined> {
  try {
    await client.apply(rgd, { fieldManager: INSTANCE_DRY_RUN_MANAGER, force: true, dryRun: true });
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.serverMessage || error.message : message(error);
  }
}

/** Where the controller writes a webhook it fills in itself (the CLI knows no address): a placeholder. */
const CONTROLLER_WEBHOOK: WebhookClientConfig = { url: "https://kro-controller.invalid/convert" };

/**
 * The CRD as the controller writes it: a graph of several versions converts through the
 * controller's webhook, whose address and CA the running controller put on the live CRD (and
 * which a new CRD gets from the controller; a placeholder stands in for the dry-run). Pure.
 */
export function crdAsWritten(crd: CustomResourceDefinition, live: KubeObject | undefined): CustomResourceDefinition {
  const conversion = crd.spec.conversion;
  if (conversion?.strategy !== "Webhook") return crd;
  const liveSpec = (
    live as { spec?: { conversion?: { webhook?: { clientConfig?: WebhookClientConfig } } } } | undefined
  )?.spec;
  const clientConfig = liveSpec?.conversion?.webhook?.clientConfig ?? CONTROLLER_WEBHOOK;
  return {
    ...crd,
    spec: {
      ...crd.spec,
      conversion: {
        strategy: "Webhook",
        webhook: { conversionReviewVersions: conversion.webhook?.conversionReviewVersions ?? ["v1"], clientConfig },
      },
    },
  };
}

/** The breaking-change gate's verdict on the CRD the new graph implies, and the API server's (dry-run). */
export async function previewCrd(
  client: KubeClient,
  graph: CompiledGraph,
  rgd: KubeObject,
  liveRgd: KubeObject | undefined,
): Promise<CrdDiff | undefined> {
  if (graph.dialect !== "cel") return undefined;
  const name = graph.crd.metadata.name;
  let live: KubeObject | undefined;
  try {
    live = await client.get(crdRef(name));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const decision = judgeCrdUpdate(live, crdAsWritten(graph.crd, live), {
    rgdName: rgd.metadata?.name ?? "",
    rgdUid: liveRgd?.metadata?.uid ?? live?.metadata?.labels?.[LABELS.rgdId] ?? "",
    // The controller stamps its own version; the CLI's would only show up as a label change.
    kroVersion: live?.metadata?.labels?.[LABELS.kroVersion] ?? PACKAGE_VERSION,
    allowBreakingChanges: rgd.metadata?.annotations?.[ANNOTATIONS.allowBreakingChanges] === "true",
  });
  const described = (changes: readonly { description: string; version: string }[]) =>
    changes.map((c) => `${c.version}: ${c.description}`);
  switch (decision.kind) {
    case "up-to-date":
      return { name, action: "unchanged", breaking: [], nonBreaking: [] };
    case "refuse":
      return {
        name,
        action: "refused",
        refusedBy: "the breaking-change gate",
        reason: decision.message,
        breaking: described(decision.breaking),
        nonBreaking: described(decision.nonBreaking),
      };
    case "create":
    case "update": {
      const breaking = decision.kind === "update" ? described(decision.breaking) : [];
      const nonBreaking = decision.kind === "update" ? described(decision.nonBreaking) : [];
      try {
        if (decision.kind === "create")
          await client.create(decision.desired as unknown as KubeObject, {
            fieldManager: "kro.run/controller",
            dryRun: true,
          });
        else if (live !== undefined)
          await client.replace(crdUpdateBody(live, decision.desired), {
            fieldManager: "kro.run/controller",
            dryRun: true,
          });
      } catch (error) {
        return {
          name,
          action: "refused",
          refusedBy: "the API server",
          reason: message(error),
          breaking,
          nonBreaking,
        };
      }
      return { name, action: decision.kind, breaking, nonBreaking };
    }
  }
}

/** The instances an RGD serves now, with the kind they are of (undefined: the RGD is new or serves nothing yet). */
export async function servedInstances(
  client: KubeClient,
  liveRgd: KubeObject | undefined,
): Promise<{ apiVersion: string; kind: string; items: KubeObject[] } | undefined> {
  const served = liveRgd === undefined ? undefined : servedKind(liveRgd);
  if (served === undefined) return undefined;
  const apiVersion = apiVersionOf(served.group, served.version);
  try {
    return { apiVersion, kind: served.kind, items: (await client.list(apiVersion, served.kind)).items };
  } catch (error) {
    if (isNotFound(error) || (error instanceof Error && error.name === "DiscoveryError")) return undefined;
    throw error;
  }
}

/** `instance` at the graph's version, defaulted by the CRD the graph implies (as reads will be once it is installed). */
export function asGraphReads(
  graph: CompiledGraph,
  instance: KubeObject,
): { ok: true; instance: KubeObject & KubeJson } | { ok: false; message: string } {
  const converted = convertInstance(graph, instance);
  if (!converted.ok) return { ok: false, message: converted.message };
  const defaulted = graph.dialect === "cel" ? applySchemaDefaults(graph.crd, converted.object) : converted.object;
  return { ok: true, instance: defaulted };
}

/** The instance document of `-i`: one object with apiVersion, kind and metadata.name. */
export async function loadInstanceFile(file: string): Promise<KubeObject> {
  const [loaded] = await loadFiles([file]);
  const [problem] = loaded?.problems ?? [];
  if (problem !== undefined) throw new InputError(formatLocated(problem, loaded?.text));
  const candidates = (loaded?.documents ?? [])
    .map((d) => d.value)
    .filter(
      (v): v is KubeObject =>
        typeof v === "object" && v !== null && !isKind({ value: v } as SourceDocument, "ResourceGraphDefinition"),
    );
  const [instance, second] = candidates;
  if (instance === undefined) throw new InputError(`${file}: no instance found`);
  if (second !== undefined)
    throw new InputError(`${file} holds ${candidates.length} objects; kro diff -i takes one instance`);
  if (
    typeof instance.apiVersion !== "string" ||
    typeof instance.kind !== "string" ||
    typeof instance.metadata?.name !== "string"
  ) {
    throw new InputError(`${file}: the instance needs apiVersion, kind and metadata.name`);
  }
  return instance;
}
