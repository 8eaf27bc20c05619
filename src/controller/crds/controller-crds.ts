/**
 * The controller's own CRDs (ResourceGraphDefinition, GraphRevision) before its informers start.
 * A lone controller installs or upgrades them at once, so `kro controller` works on an empty
 * cluster. With a leader (leader election or --shards) only the leader writes them, at each
 * election, through its fence; any other replica writes nothing and waits until they are there.
 */
import { graphRevisionCustomResourceDefinition, rgdCustomResourceDefinition } from "../../api/index.js";
import { isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { crdRef, ensureRgdCrd, isEstablished, isServed } from "./crd-installer.js";
import type { RgdLeadership } from "../coordination/index.js";

const POLL_MS = 1000;

function controllerCrds(): KubeObject[] {
  return [rgdCustomResourceDefinition(), graphRevisionCustomResourceDefinition()] as unknown as KubeObject[];
}

export async function installControllerCrds(client: KubeClient): Promise<void> {
  await Promise.all(controllerCrds().map((crd) => ensureRgdCrd(client, crd)));
}

/**
 * Resolves once the CRDs are established: installed by this replica when it leads, or seen
 * installed by another. Rejects when this replica's own install fails (a start failure) or the
 * CRDs cannot be read; never writes while not leading.
 */
export function controllerCrdsInstalled(
  client: KubeClient,
  leader: RgdLeadership,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const state = { settled: false };
    const settle = (error?: Error): void => {
      if (state.settled) {
        if (error !== undefined) logger.error({ err: error.message }, "could not upgrade the controller's CRDs");
        return;
      }
      state.settled = true;
      if (error === undefined) resolve();
      else reject(error);
    };
    const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(JSON.stringify(error)));
    // Every tenure checks them again: a new controller version upgrades them when it leads.
    leader.onAcquired(() => {
      installControllerCrds(client.withFence(leader.fence)).then(
        () => {
          settle();
        },
        (error: unknown) => {
          settle(asError(error));
        },
      );
    });
    void (async () => {
      while (!state.settled && !signal.aborted) {
        try {
          if (await allEstablished(client)) {
            settle();
            return;
          }
        } catch (error) {
          settle(asError(error));
          return;
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();
  });
}

async function allEstablished(client: KubeClient): Promise<boolean> {
  for (const crd of controllerCrds()) {
    try {
      if (!isEstablished(await client.get(crdRef(crd.metadata?.name ?? "")))) return false;
      if (!(await isServed(client, crd))) return false;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }
  return true;
}
