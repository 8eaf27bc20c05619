/**
 * DOT → SVG in-process with Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz embeds the
 * wasm, so this works offline). Kept in the CLI: graph builds the DOT text, this is the
 * third-party boundary that lays it out.
 */

export async function renderSvg(dot: string): Promise<string> {
  // Loaded on the first drawing: the module carries the wasm as a multi-megabyte string, which a
  // controller that never draws (the web view is opened, if ever, long after start) need not hold.
  const { Graphviz } = await import("@hpcc-js/wasm-graphviz");
  const graphviz = await Graphviz.load();
  return graphviz.dot(dot, "svg");
}
