#!/usr/bin/env node
// kro: the command-line entry. Parses arguments and formats output; the work lives in lower layers.
import { Command, CommanderError } from "commander";
import { registerClusterCommands } from "./cluster-up.js";
import { registerCompileCommands } from "./compile-commands.js";
import { registerControllerCommand } from "./controller-command.js";
import { registerDevCommands } from "./dev-command.js";
import { registerRenderCommand } from "./render-command.js";
import { registerConvertCommand } from "./convert-command.js";
import { registerTreeCommand } from "./tree-command.js";
import { registerUiCommand } from "./ui-command.js";
import { registerGenerateInstance } from "./generate-instance.js";
import { registerGraphCommand } from "./graph-command.js";
import { registerImportCommands } from "./import-helm-command.js";
import { PACKAGE_VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("kro")
    .description("Kube Resource Orchestrator: compile ResourceGraphDefinitions and run their controller")
    .version(PACKAGE_VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerClusterCommands(program);
  registerCompileCommands(program);
  registerGenerateInstance(program);
  registerControllerCommand(program);
  registerRenderCommand(program);
  registerConvertCommand(program);
  registerGraphCommand(program);
  registerDevCommands(program);
  registerTreeCommand(program);
  registerUiCommand(program);
  registerImportCommands(program);
  return program;
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    // commands that found problems (validate) set process.exitCode themselves
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`kro: error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv);
