/**
 * `kro lsp`: the language server on stdin/stdout. Offline: child kinds are checked against the
 * built-in Kubernetes schemas of --kube-version plus --crd files, as `kro validate` does.
 */
import type { Command } from "commander";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { createKroCelEnvironment } from "../../expr/index.js";
import { DEFAULT_KUBE_MINOR } from "../../localcluster/index.js";
import { positiveInteger, schemaResolverFor } from "../inputs/index.js";
import { startLanguageServer } from "./server.js";
import { REAL_TIMERS } from "./timers.js";

const HELP = `
Speaks the Language Server Protocol on stdin/stdout for ResourceGraphDefinition YAML files, both
dialects. An editor starts it and talks to it; it prints nothing for a person to read.

What it does:
  diagnostics   the errors and warnings of \`kro validate\`, from the same compiler, as you type
                (on open at once; after each change once the text has been quiet for --debounce)
  definition    from a resource id in \${…} (the deploy of \${deploy.spec.replicas}) to its id:
  references    every \${…} of the RGD that reads a resource id
  completion    inside \${…}: resource ids and schema; after a dot, the fields of schema.spec…,
                schema.metadata… and of a resource's kind (from the built-in schemas)
  hover         a resource id's kind; a field's type (and description) in \${…} or on a template key
  quick fix     a misspelt id or field the compiler says "did you mean" about is replaced by that name

Offline: it never contacts a cluster. Kinds that are not built into Kubernetes are warnings
unless their CRDs are passed with --crd (read once, at start).

Editor setup: see "Editor support" in the README, e.g. for Neovim
  vim.lsp.start({ name = "kro", cmd = { "kro", "lsp" }, root_dir = vim.fn.getcwd() })
`;

export function registerLspCommand(program: Command): void {
  program
    .command("lsp")
    .description("run the language server for RGD files (LSP over stdio, for editors)")
    .addHelpText("after", HELP)
    .option("--stdio", "talk over stdin/stdout (the default and only transport; accepted for editors that pass it)")
    .option("--crd <file...>", "CRD files that define child kinds not built into Kubernetes")
    .option(
      "--kube-version <version>",
      "Kubernetes version whose built-in schemas to check against",
      DEFAULT_KUBE_MINOR,
    )
    .option("--debounce <ms>", "quiet time after a change before diagnostics are recomputed", "200")
    .action(async (flags: { crd?: string[]; kubeVersion: string; debounce: string }) => {
      const resolver = await schemaResolverFor(flags.kubeVersion, flags.crd ?? []);
      const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
      startLanguageServer(connection, {
        compile: { resolver, env: createKroCelEnvironment({ enableRuntime: true }), unknownKinds: "warn" },
        timers: REAL_TIMERS,
        debounceMs: positiveInteger("--debounce", flags.debounce),
      });
      // The connection keeps the process alive; `exit` ends it (with 0 after `shutdown`).
      await new Promise<never>(() => {});
    });
}
