/**
 * `kro lsp`: the language server on stdin/stdout. Offline by default: child kinds are checked
 * against the built-in Kubernetes schemas of --kube-version plus --crd files, as `kro validate`
 * does; with --cluster also against every kind the live cluster publishes, read once at start.
 */
import type { Command } from "commander";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { createKroCelEnvironment } from "../../expr/index.js";
import { resolverFromFlags, withSchemaSources, type SchemaSourceFlags } from "../compile/index.js";
import { positiveInteger } from "../inputs/index.js";
import { startLanguageServer } from "./server.js";
import { REAL_TIMERS } from "./timers.js";

const HELP = `
Speaks the Language Server Protocol on stdin/stdout for ResourceGraphDefinition YAML files, both
dialects. An editor starts it and talks to it; it prints nothing for a person to read.

What it does:
  diagnostics   the errors and warnings of \`kro validate\`, from the same compiler, as you type
                (on open at once; after each change once the text has been quiet for --debounce)
  definition    from a resource id in \${…} (the deploy of \${deploy.spec.replicas}) to its id:, and
                in the template dialect from .children.<id> or a dependsOn entry to that child
  references    every read of a resource id (or child id) in the RGD
  completion    inside \${…}: resource ids, schema, forEach variables, each, CEL namespaces and
                functions; after a dot, the fields of schema.spec…, schema.metadata… and of a
                resource's kind, then the CEL functions callable on that value (with signatures).
                Inside a template's {{…}}: .parent fields from its CRD, .children ids and fields,
                .self in a readyWhen, template functions
  hover         a resource id's kind; a field's type (and description); a called function's
                signatures; elsewhere in \${…} the CEL type of the whole expression
  quick fix     a misspelt id or field the compiler says "did you mean" about is replaced by that name

Offline by default: it never contacts a cluster. Kinds that are not built into Kubernetes are
warnings unless their CRDs are passed with --crd (read once, at start). With --cluster it also reads
the schema of every kind the cluster publishes (OpenAPI v3, with your kubeconfig's rights, cached on
disk) once at start, and a kind the cluster does not serve is an error, as with validate --cluster;
restart the server to see kinds installed since.

Editor setup: see "Editor support" in the README, e.g. for Neovim
  vim.lsp.start({ name = "kro", cmd = { "kro", "lsp" }, root_dir = vim.fn.getcwd() })
`;

export function registerLspCommand(program: Command): void {
  withSchemaSources(program.command("lsp"))
    .description("run the language server for RGD files (LSP over stdio, for editors)")
    .addHelpText("after", HELP)
    .option("--stdio", "talk over stdin/stdout (the default and only transport; accepted for editors that pass it)")
    .option("--debounce <ms>", "quiet time after a change before diagnostics are recomputed", "200")
    .action(async (flags: SchemaSourceFlags & { debounce: string }) => {
      const debounceMs = positiveInteger("--debounce", flags.debounce);
      const resolver = await resolverFromFlags(flags, "all");
      const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
      startLanguageServer(connection, {
        compile: {
          resolver,
          env: createKroCelEnvironment({ enableRuntime: true }),
          unknownKinds: flags.cluster === true ? "error" : "warn",
        },
        timers: REAL_TIMERS,
        debounceMs,
      });
      // The connection keeps the process alive; `exit` ends it (with 0 after `shutdown`).
      await new Promise<never>(() => {});
    });
}
