/**
 * Gets a generated CRD ready for the API server when its RGD declares several versions: the
 * webhook learns the API first (so it can answer as soon as the CRD exists), then the CRD's
 * `conversion.webhook.clientConfig` says where the webhook is and which CA signs it.
 */
import type { CelCompiledGraph } from "../../graph/index.js";
import { apiOfGraph } from "../../runtime/index.js";
import type { CustomResourceDefinition } from "../../schema/index.js";
import type { ConversionWebhook } from "./conversion-webhook.js";

export async function withConversionWebhook(
  webhook: ConversionWebhook,
  graph: CelCompiledGraph,
): Promise<CustomResourceDefinition> {
  const api = apiOfGraph(graph);
  const conversion = graph.crd.spec.conversion;
  if (api === undefined || conversion?.strategy !== "Webhook") return graph.crd;
  webhook.register(api);
  const clientConfig = await webhook.clientConfig();
  return {
    ...graph.crd,
    spec: {
      ...graph.crd.spec,
      conversion: {
        strategy: "Webhook",
        webhook: { conversionReviewVersions: conversion.webhook?.conversionReviewVersions ?? ["v1"], clientConfig },
      },
    },
  };
}

/** A follower or a restart serving a graph: the webhook must know its API too. */
export function registerConversion(webhook: ConversionWebhook, graph: CelCompiledGraph): void {
  const api = apiOfGraph(graph);
  if (api !== undefined) webhook.register(api);
}
