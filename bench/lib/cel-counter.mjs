// Counts CEL program runs in this process: wraps cel-js's Environment.prototype.parse so every
// program it returns counts its evaluations. Install before the runtime first compiles anything.
import { createRequire } from "node:module";
import path from "node:path";

export async function installCelCounter(root) {
  const require = createRequire(path.join(root, "package.json"));
  const { Environment } = await import(require.resolve("@marcbachmann/cel-js"));
  const counter = { count: 0 };
  const parse = Environment.prototype.parse;
  Environment.prototype.parse = function countingParse(source) {
    const program = parse.call(this, source);
    const counted = function (...args) {
      counter.count++;
      return program.apply(this, args);
    };
    return Object.assign(counted, program);
  };
  return counter;
}
