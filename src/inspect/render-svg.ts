/**
 * DOT → SVG in-process with Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz embeds the
 * wasm, so this works offline). Kept in the CLI: graph builds the DOT text, this is the
 * third-party boundary that lays it out.
 */
import { Graphviz } from "@hpcc-js/wasm-graphviz";

export async function renderSvg(dot: string): Promise<string> {
  const graphviz = await Graphviz.load();
  return graphviz.dot(dot, "svg");
}
