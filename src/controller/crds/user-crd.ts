/**
 * Template dialect (docs/reference/seed-dialect.md §2): the instance kind is the user's own CRD.
 * Find it, add status storage when it has none (server-side apply under our field manager, an Event
 * on the RGD saying so, nothing else touched), or say exactly why the kind is not ready. The CRD
 * informer re-enqueues the RGD when the CRD appears or someone removes our additions.
 */
import { FIELD_MANAGERS } from "../../api/index.js";
import { attachToCrd, type TemplateCompiledGraph } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { ControllerContext } from "../context/index.js";
import { CRD_TYPE, crdRef, waitEstablished } from "./crd-installer.js";
import { recordEvent } from "../context/index.js";
import type { InstanceKind } from "../context/index.js";

export type KindResult = { ok: true; instance: InstanceKind } | { ok: false; reason: string; message: string };

export async function attachUserCrd(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: TemplateCompiledGraph,
): Promise<KindResult> {
  const { group, version, kind } = graph.instance;
  const crd = await findCrd(ctx, group, kind);
  if (crd === undefined) {
    return {
      ok: false,
      reason: "CRDNotFound",
      message: `no CustomResourceDefinition defines ${kind}.${group}; the template dialect attaches to your CRD — apply it first (the RGD becomes Active by itself when it appears)`,
    };
  }
  const attach = attachToCrd(crd, graph.instance, graph.rollout !== undefined);
  if (!attach.ok) return { ok: false, reason: "Failed", message: attach.message };
  if (attach.apply !== undefined) {
    if (!ctx.options.addStatusToUserCrds) {
      return {
        ok: false,
        reason: "StatusNotStorable",
        message: `CustomResourceDefinition ${attach.crdName} stores no status (${attach.additions.join("; ")}); statusMappings cannot be written and adding status storage is turned off`,
      };
    }
    await ctx.client.apply(attach.apply, { fieldManager: FIELD_MANAGERS.controller, force: true });
    await recordEvent(
      ctx,
      rgd,
      "StatusStorageAdded",
      `added to CustomResourceDefinition ${attach.crdName} so the instances' status can be stored: ${attach.additions.join("; ")}`,
    );
    if (!(await waitEstablished(ctx.client, crdRef(attach.crdName)))) {
      return {
        ok: false,
        reason: "NotEstablished",
        message: `CustomResourceDefinition ${attach.crdName} is not Established`,
      };
    }
  }
  return {
    ok: true,
    instance: {
      apiVersion: `${group}/${version}`,
      group,
      version,
      kind,
      plural: attach.plural,
      namespaced: attach.scope === "Namespaced",
    },
  };
}

async function findCrd(ctx: ControllerContext, group: string, kind: string): Promise<KubeObject | undefined> {
  const list = await ctx.client.list(CRD_TYPE.apiVersion, CRD_TYPE.kind);
  return list.items.find((crd) => {
    const spec = crd.spec as { group?: string; names?: { kind?: string } } | undefined;
    return spec?.group === group && spec.names?.kind === kind;
  });
}
