/**
 * Builds the single shared kro CEL environment (§4.4) on cel-js: standard library, optionals,
 * cel.bind, and every extension library. Library functions charge the cost meter of the
 * evaluation in progress through a slot that the (synchronous) evaluator sets and clears.
 */
import { Environment } from "@marcbachmann/cel-js";
import type { CostMeter } from "./cost.js";
import {
  registerComparisonsLibrary,
  registerComprehensionsLibrary,
  registerConversionsLibrary,
  registerK8sBasicLibraries,
  registerNetLibraries,
  registerQuantityLibrary,
  registerSemverLibrary,
  registerKroLibraries,
  registerListsExtLibrary,
  registerOptionalsLibrary,
  registerStringsLibrary,
  registerTimezonesLibrary,
} from "./library/index.js";
import { registerOmitLibrary, registerRuntimeLibrary } from "./lib-kro-runtime.js";
import { registerRegexLibrary } from "./regex-calls.js";
import { registerWellKnownNullComparisons } from "./null-comparison.js";
import { declareNamespace, type LibraryContext } from "./lib-support.js";

export interface LibraryOptions {
  /** Feature gate CELOmitFunction (default off): without it `omit()` is an unknown function. */
  readonly enableOmit?: boolean;
  /** `runtime.*` functions, only valid in status.conditions. */
  readonly enableRuntime?: boolean;
}

/** Where library functions find the meter of the evaluation running right now. */
export interface MeterSlot {
  current: CostMeter | undefined;
}

export interface KroCelEnvironment {
  /** Evaluation environment: variables are undeclared and therefore dyn. */
  readonly evaluation: Environment;
  /** Frozen parent for typed environments (clone, then declare variables). */
  readonly typed: Environment;
  readonly slot: MeterSlot;
  readonly options: LibraryOptions;
}

function registerAll(env: Environment, lib: LibraryContext, options: LibraryOptions): Environment {
  const lists = declareNamespace(env, "lists");
  registerConversionsLibrary(env);
  registerComparisonsLibrary(env);
  registerOptionalsLibrary(env);
  registerTimezonesLibrary(env);
  registerStringsLibrary(env, lib);
  registerListsExtLibrary(env, lib, lists);
  registerComprehensionsLibrary(env);
  registerKroLibraries(env, lib, lists);
  registerK8sBasicLibraries(env, lib);
  registerRegexLibrary(env, lib);
  registerQuantityLibrary(env);
  registerNetLibraries(env);
  registerSemverLibrary(env);
  registerWellKnownNullComparisons(env);
  if (options.enableOmit === true) registerOmitLibrary(env);
  if (options.enableRuntime === true) registerRuntimeLibrary(env);
  return env;
}

const ENV_OPTIONS = {
  enableOptionalTypes: true,
  // cel-go types mixed literals as list(dyn)/map(dyn); cel-js rejects them by default.
  homogeneousAggregateLiterals: false,
} as const;

export function createKroCelEnvironment(options: LibraryOptions = {}): KroCelEnvironment {
  const slot: MeterSlot = { current: undefined };
  const lib: LibraryContext = {
    charge: (units) => {
      slot.current?.charge(units);
    },
  };
  const evaluation = registerAll(new Environment({ ...ENV_OPTIONS, unlistedVariablesAreDyn: true }), lib, options);
  const typed = registerAll(new Environment({ ...ENV_OPTIONS, unlistedVariablesAreDyn: false }), lib, options);
  return { evaluation, typed, slot, options };
}
