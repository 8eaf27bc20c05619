/**
 * `kro rollout status|pause|resume|undo RGD`: steering an RGD's rollout (docs/design/rollouts.md)
 * with the caller's own rights on the RGD. The controller does the moving; these commands only
 * read the rollout or write the verdict the controller acts on (rollout-edits.ts).
 */
import type { Command } from "commander";
import { KRO_API_VERSION, RGD } from "../../api/index.js";
import { createKubeClient, isConflict, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import { InputError } from "../inputs/index.js";
import { pausePatch, resumePatches, RolloutRefusal, undoPatch } from "./rollout-edits.js";
import { rolloutReport, type RgdWithConditions } from "../../inspect/index.js";

interface ClusterFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
}

const HELP = `
An RGD with spec.rollout moves its instances to a new GraphRevision in waves, behind a health gate
(docs/design/rollouts.md). These commands steer it; the controller does the moving:
  status   the target revision, the wave, how many instances are healthy there, a halt and the
           instances that failed it, the revisions rejected, the Propagated condition
  pause    nothing moves (pins and rollbacks still do) until resume; an annotation on the RGD
  resume   removes the pause, clears a halt (the gate's deadlines start again); --retry also lifts
           every rejected revision
  undo     rejects the target revision (with --to-revision N, every revision above N): its
           instances go back to the newest revision below it that is not rejected, at once
`;

const ref = (name: string) => ({ apiVersion: KRO_API_VERSION, kind: RGD.kind, name });

async function withRgd<T>(
  name: string,
  flags: ClusterFlags,
  act: (client: KubeClient, rgd: KubeObject) => Promise<T>,
): Promise<T> {
  const client = await createKubeClient({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    env: process.env,
    maxRetries: 1,
  });
  try {
    const rgd = await client.get(ref(name)).catch((error: unknown) => {
      if (isNotFound(error)) throw new InputError(`ResourceGraphDefinition "${name}" not found`);
      throw error;
    });
    return await act(client, rgd);
  } catch (error) {
    if (error instanceof RolloutRefusal) throw new InputError(error.message);
    if (isConflict(error))
      throw new InputError(`${name} changed while this command ran (the controller wrote its status): run it again`);
    throw error;
  } finally {
    client.close();
  }
}

function revisionFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const revision = Number(value);
  if (!Number.isSafeInteger(revision) || revision < 0)
    throw new InputError(`--to-revision must be a revision number, got "${value}"`);
  return revision;
}

function withCluster(command: Command): Command {
  return command
    .option("--kubeconfig <file>", "kubeconfig (default $KUBECONFIG, ~/.kube/config)")
    .option("--context <name>", "kubeconfig context");
}

export function registerRolloutCommand(program: Command): void {
  const rollout = program
    .command("rollout")
    .description("steer the rollout of an RGD's new revision to its instances (RGDs with spec.rollout)")
    .addHelpText("after", HELP);
  withCluster(rollout.command("status <rgd>"))
    .description("the rollout: target revision, wave, healthy instances, halts, rejections")
    .option("-o, --output <format>", "text or json", "text")
    .action(async (name: string, flags: ClusterFlags & { output: string }) => {
      if (flags.output !== "text" && flags.output !== "json")
        throw new InputError(`unknown output format "${flags.output}": use text or json`);
      await withRgd(name, flags, (_client, rgd) => {
        const view = rgd as RgdWithConditions;
        process.stdout.write(
          flags.output === "json"
            ? `${JSON.stringify({ name, policy: view.spec?.rollout ?? null, rollout: view.status?.rollout ?? null }, null, 2)}\n`
            : rolloutReport(view),
        );
        return Promise.resolve();
      });
    });
  withCluster(rollout.command("pause <rgd>"))
    .description("hold every move until resume (an annotation on the RGD)")
    .action(async (name: string, flags: ClusterFlags) => {
      await withRgd(name, flags, async (client, rgd) => {
        await client.patch(ref(name), pausePatch(rgd));
        process.stdout.write(`${name}: rollout paused\n`);
      });
    });
  withCluster(rollout.command("resume <rgd>"))
    .description("lift a pause and clear a halt")
    .option("--retry", "also lift every rejected revision")
    .action(async (name: string, flags: ClusterFlags & { retry?: boolean }) => {
      await withRgd(name, flags, async (client, rgd) => {
        const { annotationPatch, statusPatch } = resumePatches(rgd, new Date(), flags.retry === true);
        // The verdict first: a resumed rollout must not move again under a halt it still shows.
        if (statusPatch !== undefined) await client.patch(ref(name), statusPatch, { subresource: "status" });
        if (annotationPatch !== undefined) await client.patch(ref(name), annotationPatch);
        process.stdout.write(`${name}: rollout resumed\n`);
      });
    });
  withCluster(rollout.command("undo <rgd>"))
    .description("reject the target revision: its instances go back at once")
    .option("--to-revision <n>", "reject every revision above this one")
    .action(async (name: string, flags: ClusterFlags & { toRevision?: string }) => {
      const toRevision = revisionFlag(flags.toRevision);
      await withRgd(name, flags, async (client, rgd) => {
        await client.patch(ref(name), undoPatch(rgd, new Date(), toRevision), { subresource: "status" });
        process.stdout.write(`${name}: revision${toRevision === undefined ? "" : "s"} rejected; instances move back\n`);
      });
    });
}
