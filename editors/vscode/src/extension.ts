// The VS Code side of `kro lsp`: it only starts the server for YAML files and restarts it when its
// settings change; diagnostics, completion, hover, navigation and quick fixes are all the server's.
import * as vscode from "vscode";
import { LanguageClient, type Executable, type LanguageClientOptions } from "vscode-languageclient/node";

/** What the extension reads of its settings: `vscode.WorkspaceConfiguration` of section `kro`. */
export interface Settings {
  get(key: string): unknown;
}

/**
 * The server process for the settings `kro.path` and `kro.args`: `<path> lsp <args…>`.
 * No transport is named: the client would then append `--stdio`, and stdio is already the default.
 */
export function serverOptions(settings: Settings): Executable {
  const path = settings.get("path");
  const args = settings.get("args");
  return {
    command: typeof path === "string" && path.trim() !== "" ? path.trim() : "kro",
    args: ["lsp", ...(Array.isArray(args) ? args.filter((a): a is string => typeof a === "string") : [])],
  };
}

/** YAML files on disk and unsaved ones; the server itself ignores YAML that holds no RGD. */
export const CLIENT_OPTIONS: LanguageClientOptions = {
  documentSelector: [
    { scheme: "file", language: "yaml" },
    { scheme: "untitled", language: "yaml" },
  ],
};

let client: LanguageClient | undefined;

async function start(): Promise<void> {
  const server = serverOptions(vscode.workspace.getConfiguration("kro"));
  const started = new LanguageClient("kro", "kro", server, CLIENT_OPTIONS);
  client = started;
  try {
    await started.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(
      `kro: could not start "${[server.command, ...(server.args ?? [])].join(" ")}" (${reason}). ` +
        `Install kro-ts or set "kro.path" to the kro command.`,
    );
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running?.isRunning() === true) await running.stop();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("kro.path") || event.affectsConfiguration("kro.args")) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export function deactivate(): Promise<void> {
  return stop();
}
