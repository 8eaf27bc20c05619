/** A chart directory or packaged .tgz read into ChartFiles (bytes by chart-relative POSIX path), for `kro import helm`. */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { CHART_LIMITS, decodeChartArchive, type ChartFiles } from "../../helm/index.js";
import { InputError } from "../inputs/index.js";

const MiB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

/** Every file of a chart directory with its size (nothing read yet). */
async function list(
  dir: string,
  out: { full: string; size: number }[] = [],
): Promise<{ full: string; size: number }[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await list(full, out);
    else if (entry.isFile()) out.push({ full, size: (await stat(full)).size });
  }
  return out;
}

/** Sizes are checked before anything is read, as Helm's loader does: a huge file is an error naming it, not a heap. */
async function readDirectory(root: string): Promise<ChartFiles> {
  const files = await list(root);
  let total = 0;
  for (const { full, size } of files) {
    if (size > CHART_LIMITS.fileBytes)
      throw new InputError(
        `chart file ${full} is ${MiB(size)}, larger than the ${MiB(CHART_LIMITS.fileBytes)} Helm allows for one chart file`,
      );
    total += size;
  }
  if (total > CHART_LIMITS.chartBytes)
    throw new InputError(
      `chart ${root} holds ${MiB(total)}, larger than the ${MiB(CHART_LIMITS.chartBytes)} Helm allows for a whole chart`,
    );
  const out = new Map<string, Uint8Array>();
  for (const { full } of files) out.set(path.relative(root, full).split(path.sep).join("/"), await readFile(full));
  return out;
}

/** A chart directory or a packaged .tgz as ChartFiles. */
export async function readChartFiles(chart: string): Promise<ChartFiles> {
  let info;
  try {
    info = await stat(chart);
  } catch (error) {
    throw new InputError(`cannot read chart ${chart}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (info.isFile()) {
    if (info.size > CHART_LIMITS.chartBytes)
      throw new InputError(
        `chart archive ${chart} is ${MiB(info.size)}, larger than the ${MiB(CHART_LIMITS.chartBytes)} Helm allows for a chart`,
      );
    return decodeChartArchive(await readFile(chart), chart);
  }
  return readDirectory(chart);
}
