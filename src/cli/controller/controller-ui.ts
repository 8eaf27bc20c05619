/**
 * `kro controller --ui-bind-address`: the controller's web endpoint started from its flags, with
 * the TLS key and certificate read from files (`--ui-tls-cert-file`, `--ui-tls-key-file`, e.g. a
 * cert-manager Secret mounted into the pod) and read again every minute, so a rotated
 * certificate is served without a restart.
 */
import { readFile } from "node:fs/promises";
import { startControllerUi, type ControllerUi, type RunningController } from "../../controller/index.js";
import type { KubeClient } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";

export interface UiFlags {
  readonly uiBindAddress: string;
  readonly uiTlsCertFile?: string;
  readonly uiTlsKeyFile?: string;
}

const RELOAD_MS = 60_000;

export function validateUiFlags(flags: UiFlags): void {
  if ((flags.uiTlsCertFile === undefined) !== (flags.uiTlsKeyFile === undefined))
    throw new Error("--ui-tls-cert-file and --ui-tls-key-file go together");
  if (flags.uiTlsCertFile !== undefined && (flags.uiBindAddress === "0" || flags.uiBindAddress === ""))
    throw new Error("--ui-tls-cert-file needs --ui-bind-address");
}

async function readTls(flags: UiFlags): Promise<{ key: string; cert: string } | undefined> {
  if (flags.uiTlsCertFile === undefined || flags.uiTlsKeyFile === undefined) return undefined;
  const [cert, key] = await Promise.all([readFile(flags.uiTlsCertFile, "utf8"), readFile(flags.uiTlsKeyFile, "utf8")]);
  return { cert, key };
}

export interface UiStartOptions {
  readonly client: KubeClient;
  readonly served: RunningController["served"];
  readonly logger: Logger;
  readonly rgdSelector?: string;
  /** Where member clusters are registered: the view reads their children there, with each person's rights. */
  readonly clusterNamespace?: string;
  readonly userAgent: string;
  /** How often the TLS files are read again (tests shorten it). */
  readonly reloadMs?: number;
}

export async function startUiFromFlags(flags: UiFlags, options: UiStartOptions): Promise<ControllerUi | undefined> {
  if (flags.uiBindAddress === "" || flags.uiBindAddress === "0") return undefined;
  let tls = await readTls(flags);
  const { reloadMs = RELOAD_MS, ...uiOptions } = options;
  const ui = await startControllerUi({
    address: flags.uiBindAddress,
    ...uiOptions,
    ...(tls === undefined ? {} : { tls }),
  });
  if (ui === undefined || tls === undefined) return ui;
  const timer = setInterval(() => {
    readTls(flags)
      .then((next) => {
        if (next === undefined || (next.cert === tls?.cert && next.key === tls.key)) return;
        ui.setTls(next);
        tls = next;
        options.logger.info({}, "web view: TLS certificate reloaded");
      })
      .catch((error: unknown) => {
        options.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "web view: cannot read the TLS files; serving the previous certificate",
        );
      });
  }, reloadMs);
  timer.unref();
  return {
    ...ui,
    close: async () => {
      clearInterval(timer);
      await ui.close();
    },
  };
}
