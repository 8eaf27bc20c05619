/**
 * The CLI side of an RGD with several API versions: an instance written at any served version
 * is converted to the hub (the version the graph reads) or to another version, offline, with the
 * same conversion the controller's webhook runs.
 */
import type { CompiledGraph } from "../../graph/index.js";
import { apiOfGraph, convertObject, isConversionError, type KubeJson } from "../../runtime/index.js";

export type Converted =
  { readonly ok: true; readonly object: KubeJson } | { readonly ok: false; readonly message: string };

/** The versions `graph`'s API serves (the hub first). */
export function servedVersions(graph: CompiledGraph): string[] {
  if (graph.dialect !== "cel") return [graph.instance.version];
  return graph.crd.spec.versions.filter((v) => v.served).map((v) => v.name);
}

/** `instance` converted to `version` of the graph's API (the hub when `version` is undefined). */
export function convertInstance(graph: CompiledGraph, instance: KubeJson, version?: string): Converted {
  // The template dialect attaches to the user's CRD: its versions convert by the user's own means.
  if (graph.dialect !== "cel" && version === undefined) return { ok: true, object: instance };
  const to = version ?? graph.instance.version;
  const from =
    typeof instance.apiVersion === "string" ? instance.apiVersion.slice(instance.apiVersion.lastIndexOf("/") + 1) : "";
  const served = servedVersions(graph);
  if (!served.includes(from))
    return {
      ok: false,
      message: `apiVersion ${JSON.stringify(instance.apiVersion)} is not served by ${graph.name} (served: ${served.map((v) => `${graph.instance.group}/${v}`).join(", ")})`,
    };
  if (!served.includes(to))
    return {
      ok: false,
      message: `${graph.name} does not serve ${graph.instance.group}/${to} (served: ${served.join(", ")})`,
    };
  if (from === to) return { ok: true, object: instance };
  const api = graph.dialect === "cel" ? apiOfGraph(graph) : undefined;
  if (api === undefined)
    return { ok: false, message: `${graph.name} has one version (${graph.instance.version}); nothing to convert` };
  try {
    return { ok: true, object: convertObject(api, instance, to) };
  } catch (e) {
    if (isConversionError(e)) return { ok: false, message: e.message };
    throw e;
  }
}
