/** Reads a chart directory into a ChartSource (the only file I/O of chart rendering). */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ChartFile, ChartSource } from "./helm-render.js";

/** The repository root (this file is dist/src/deploy/chart-files.js once built). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

async function readDir(chartDir: string, sub: string): Promise<ChartFile[]> {
  const dir = path.join(chartDir, sub);
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: unknown) => {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  });
  const files = entries.filter((e) => e.isFile()).map((e) => e.name).sort();
  return Promise.all(files.map(async (name) => ({ path: `${sub}/${name}`, text: await readFile(path.join(dir, name), "utf8") })));
}

export async function loadChart(chartDir: string): Promise<ChartSource> {
  const [chartYaml, valuesYaml, templates, crds] = await Promise.all([
    readFile(path.join(chartDir, "Chart.yaml"), "utf8"),
    readFile(path.join(chartDir, "values.yaml"), "utf8"),
    readDir(chartDir, "templates"),
    readDir(chartDir, "crds"),
  ]);
  return { chartYaml, valuesYaml, templates, crds };
}
