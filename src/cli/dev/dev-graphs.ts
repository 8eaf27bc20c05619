/**
 * The SVG of each RGD's graph next to the kubeconfig, coloured by the live state of its instance
 * (when exactly one instance uses it) and written again only when those colours change.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { graphPicture, type CompiledGraph, type NodeState } from "../../graph/index.js";
import { renderSvg } from "../../inspect/index.js";

export class DevGraphs {
  private graphs: readonly CompiledGraph[] = [];
  private readonly files = new Map<string, string>();
  private readonly writtenColors = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly colorsFor: (rgdName: string) => Record<string, NodeState> | undefined,
    private readonly note: (line: string) => void,
  ) {}

  /** The graphs of a (re)load: all written, a new file announced. */
  async show(graphs: readonly CompiledGraph[]): Promise<void> {
    this.graphs = graphs;
    this.writtenColors.clear();
    for (const graph of graphs) {
      const file = await this.write(graph);
      if (this.files.get(graph.name) !== file) this.note(`graph of ${graph.name}: ${file}`);
      this.files.set(graph.name, file);
    }
  }

  /** Writes again the graphs whose instance's state changed. */
  async recolor(): Promise<void> {
    for (const graph of this.graphs) {
      if (this.writtenColors.get(graph.name) === colorKey(this.colorsFor(graph.name))) continue;
      await this.write(graph);
    }
  }

  paths(): string[] {
    return [...this.files.values()];
  }

  private async write(graph: CompiledGraph): Promise<string> {
    const colorBy = this.colorsFor(graph.name);
    const file = path.join(this.dir, `${graph.name}.svg`);
    await writeFile(file, await renderSvg(graphPicture(graph, "dot", colorBy === undefined ? {} : { colorBy })));
    this.writtenColors.set(graph.name, colorKey(colorBy));
    return file;
  }
}

const colorKey = (colorBy: Record<string, NodeState> | undefined): string => JSON.stringify(colorBy ?? null);
