/**
 * Compiled CEL programs per graph. The controller evaluates an instance several times per
 * reconcile and every instance of a kind shares one graph, so each expression text is parsed
 * once per graph (WeakMap: a graph that is no longer served takes its programs with it).
 */
import {
  compileExpression,
  compileField,
  createKroCelEnvironment,
  extractExpressions,
  type CompiledExpression,
  type CompiledField,
  type FoundField,
  type KroCelEnvironment,
} from "../../expr/index.js";
import type { CompiledGraph } from "../../graph/index.js";

// runtime.* is only type-checked into status.conditions at compile time; omit() only passes the
// compiler with its feature gate. Enabling both here only means a compiled graph always evaluates.
// Built on first use (~0.4 MB kept): a controller with no instance yet, or a command that only
// compiles, never needs it.
let env: KroCelEnvironment | undefined;
const envOf = (): KroCelEnvironment => (env ??= createKroCelEnvironment({ enableRuntime: true, enableOmit: true }));

export interface Programs {
  expression(source: string): CompiledExpression;
  field(field: Pick<FoundField, "text" | "segments">): CompiledField;
  /** A `${…}` string (status field) compiled as a field. */
  template(text: string): CompiledField;
}

const cache = new WeakMap<CompiledGraph, Programs>();

function createPrograms(): Programs {
  const expressions = new Map<string, CompiledExpression>();
  const fields = new Map<string, CompiledField>();
  const field = (f: Pick<FoundField, "text" | "segments">): CompiledField => {
    let compiled = fields.get(f.text);
    if (compiled === undefined) {
      compiled = compileField(envOf(), f.text, f.segments);
      fields.set(f.text, compiled);
    }
    return compiled;
  };
  return {
    expression(source) {
      let compiled = expressions.get(source);
      if (compiled === undefined) {
        compiled = compileExpression(envOf(), source);
        expressions.set(source, compiled);
      }
      return compiled;
    },
    field,
    template(text) {
      const cached = fields.get(text);
      return cached ?? field({ text, segments: extractExpressions(text).segments });
    },
  };
}

export function programsFor(graph: CompiledGraph): Programs {
  let programs = cache.get(graph);
  if (programs === undefined) {
    programs = createPrograms();
    cache.set(graph, programs);
  }
  return programs;
}
