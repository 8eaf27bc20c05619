#!/usr/bin/env -S node --max-semi-space-size=2
// kro: the command-line entry. Parses arguments and formats output; the work lives in lower layers.
// The flag on the first line is the image's (Dockerfile ENTRYPOINT): `kro`, `npx kro` and
// `kubectl kro` keep a 2 MB young-generation semi-space instead of 16 MB — ~30 MB less RSS for a
// long-running controller or `kro dev` (docs/performance-archive.md). Pinned by
// test/tooling/cli-startup.test.ts.
import { Command, CommanderError } from "commander";
import { PACKAGE_VERSION } from "./version.js";

type Register = (program: Command) => void;

/**
 * Which modules register each top-level command, in registration order. A command loads only its
 * own code (`kro import helm` does not load the controller, its metrics or the Kubernetes client):
 * loading every command cost ~0.5 s and ~45 MB before any work began. Help, and a name not listed
 * here, load them all, so commander can list every command or say which one was meant.
 */
const compile = async (): Promise<Register> => (await import("./compile/index.js")).registerCompileCommands;
const dev = async (): Promise<Register> => (await import("./dev/index.js")).registerDevCommands;
const COMMANDS: Readonly<Record<string, readonly (() => Promise<Register>)[]>> = {
  cluster: [async () => (await import("./dev/index.js")).registerClusterCommands],
  validate: [compile],
  generate: [compile, async () => (await import("./render/index.js")).registerGenerateInstance],
  controller: [async () => (await import("./controller/index.js")).registerControllerCommand],
  render: [async () => (await import("./render/index.js")).registerRenderCommand],
  convert: [async () => (await import("./render/index.js")).registerConvertCommand],
  graph: [async () => (await import("./inspect/index.js")).registerGraphCommand],
  dev: [dev],
  demo: [dev],
  tree: [async () => (await import("./inspect/index.js")).registerTreeCommand],
  diff: [async () => (await import("./diff/index.js")).registerDiffCommand],
  ui: [async () => (await import("./inspect/index.js")).registerUiCommand],
  import: [async () => (await import("./import-helm/index.js")).registerImportCommands],
  lsp: [async () => (await import("./lsp/index.js")).registerLspCommand],
  rollout: [async () => (await import("./rollout/index.js")).registerRolloutCommand],
};

/** The commands that run for hours: the controller, and `kro dev`/`kro demo` with it in-process. */
const LONG_RUNNING_COMMANDS: ReadonlySet<string> = new Set(["controller", "dev", "demo"]);

/** The first argument that is not an option: the command asked for. */
function commandName(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith("-"));
}

export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command("kro")
    .description("Kube Resource Orchestrator: compile ResourceGraphDefinitions and run their controller")
    .version(PACKAGE_VERSION)
    .showHelpAfterError()
    .exitOverride();
  const name = commandName(argv);
  const onlyVersion = name === undefined && argv.slice(2).some((a) => a === "-V" || a === "--version");
  const wanted = onlyVersion ? [] : name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  // Every command, in the order `kro --help` lists them, when no single one was named.
  const loaders = wanted ?? [...new Set(Object.values(COMMANDS).flat())];
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program);
  return program;
}

async function main(argv: readonly string[]): Promise<number> {
  // Before the command's code loads: a hand-typed `node …/main.js controller` gets the image's
  // young-generation limit too, and every start a bounded old generation (heap-limits.ts).
  if (LONG_RUNNING_COMMANDS.has(commandName(argv) ?? "")) (await import("./process/index.js")).applyHeapLimits();
  try {
    await (await buildProgram(argv)).parseAsync([...argv]);
    // commands that found problems (validate) set process.exitCode themselves
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`kro: error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

// `kro render … | head`: the reader goes away before the output ends. Node ignores SIGPIPE, so
// the next write fails with EPIPE — unhandled, a crash with a stack trace. A Unix tool stops
// quietly instead, with the status SIGPIPE gives (128 + 13), so `set -o pipefail` still sees the cut.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(141);
});
process.exitCode = await main(process.argv);
