/** Writes to an RGD's own status (only when it differs), with an Event per condition change. */
import { KRO_API_VERSION, RGD } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import type { ControllerContext } from "../context/index.js";
import { jsonEqual, recordConditionChanges } from "../context/index.js";
import { RGD_CONDITIONS, rgdStatus, type RgdStatusParts } from "./rgd-status.js";

export const rgdRef = (name: string) => ({ apiVersion: KRO_API_VERSION, kind: RGD.kind, name });

export async function writeRgdStatus(
  ctx: ControllerContext,
  rgd: KubeObject,
  status: Record<string, unknown>,
): Promise<void> {
  if (jsonEqual(status, rgd.status)) return;
  await ctx.client.updateStatus({ ...rgd, status });
  recordConditionChanges(ctx, rgd, rgd.status, status);
}

export async function failAuthorPolicy(
  ctx: ControllerContext,
  rgd: KubeObject,
  parts: RgdStatusParts,
  graph: CompiledGraph | undefined,
  message: string,
): Promise<never> {
  const failed = {
    ...parts,
    controllerReady: {
      type: RGD_CONDITIONS.controllerReady,
      status: "False" as const,
      reason: "AuthorPolicyFailed",
      message,
    },
  };
  await writeRgdStatus(ctx, rgd, rgdStatus(rgd, failed, graph, ctx.now()));
  throw new Error(message);
}

/** A condition message must fit (the API server caps it at 32 KiB): the first issues, then a count. */
const MAX_MESSAGE_LENGTH = 4096;
export function boundedMessage(parts: readonly string[]): string {
  let message = "";
  for (const [i, part] of parts.entries()) {
    const next = message === "" ? part : `${message}; ${part}`;
    if (next.length > MAX_MESSAGE_LENGTH)
      return `${message === "" ? part.slice(0, MAX_MESSAGE_LENGTH) : message}; … and ${parts.length - i - (message === "" ? 1 : 0)} more issue(s)`;
    message = next;
  }
  return message;
}
