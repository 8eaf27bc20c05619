/** A chart directory or packaged .tgz read into ChartFiles (bytes by chart-relative POSIX path), for `kro import helm`. */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { decodeChartArchive, type ChartFiles } from "../../helm/index.js";
import { InputError } from "../inputs/index.js";

async function walk(root: string, dir: string, out: Map<string, Uint8Array>): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await walk(root, full, out);
    else if (entry.isFile()) out.set(path.relative(root, full).split(path.sep).join("/"), await readFile(full));
  }
}

/** A chart directory or a packaged .tgz as ChartFiles. */
export async function readChartFiles(chart: string): Promise<ChartFiles> {
  let info;
  try {
    info = await stat(chart);
  } catch (error) {
    throw new InputError(`cannot read chart ${chart}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (info.isFile()) return decodeChartArchive(await readFile(chart), chart);
  const files = new Map<string, Uint8Array>();
  await walk(chart, chart, files);
  return files;
}
