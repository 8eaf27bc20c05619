/**
 * A packaged chart (`helm package`'s .tgz, or a subchart under charts/) as ChartFiles: gunzip,
 * then a small ustar reader (regular files, pax `path` records and GNU long names). Every path
 * loses its first component (the chart's directory inside the archive), as Helm's loader does.
 * Bytes in, bytes out: no file system.
 */
import { gunzipSync } from "node:zlib";
import { HelmImportError, type ChartFiles } from "./types.js";

const BLOCK = 512;
/**
 * Helm's own limits (pkg/chart/loader: MaxDecompressedChartSize, MaxDecompressedFileSize): a chart
 * bigger than this, or one file of it, is refused before it is read whole.
 */
export const CHART_LIMITS = { chartBytes: 100 * 1024 * 1024, fileBytes: 5 * 1024 * 1024 } as const;
const MAX_DECOMPRESSED = CHART_LIMITS.chartBytes;

function text(block: Uint8Array, start: number, length: number): string {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return new TextDecoder().decode(end < 0 ? slice : slice.subarray(0, end));
}

function octal(block: Uint8Array, start: number, length: number, archive: string): number {
  const field = text(block, start, length).trim();
  if (field === "") return 0;
  if (!/^[0-7]+$/.test(field))
    throw new HelmImportError(`not a tar archive: bad size field ${JSON.stringify(field)}`, archive);
  return parseInt(field, 8);
}

function paxPath(data: Uint8Array): string | undefined {
  // Records: "<len> key=value\n".
  for (const record of new TextDecoder().decode(data).split("\n")) {
    const match = /^\d+ path=(.*)$/.exec(record);
    if (match) return match[1];
  }
  return undefined;
}

/** Decodes a gzipped tar of one chart; `archive` names it in errors. */
export function decodeChartArchive(bytes: Uint8Array, archive: string): ChartFiles {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: MAX_DECOMPRESSED });
  } catch (e) {
    throw new HelmImportError(`not a gzipped chart archive (${(e as Error).message})`, archive);
  }
  const files = new Map<string, Uint8Array>();
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12, archive);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw new HelmImportError("truncated tar archive", archive);
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L") {
      longName = text(data, 0, data.length);
      continue;
    }
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === "g") continue;
    const prefix = text(header, 345, 155);
    const name = longName ?? (prefix === "" ? text(header, 0, 100) : `${prefix}/${text(header, 0, 100)}`);
    longName = undefined;
    if (type !== "0" && type !== "\0") continue; // directories, links: Helm's loader ignores them too
    const parts = name.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes(".."))
      throw new HelmImportError(`archive entry ${JSON.stringify(name)} escapes the chart`, archive);
    if (parts.length < 2) continue;
    files.set(parts.slice(1).join("/"), data.slice());
  }
  if (files.size === 0) throw new HelmImportError("the archive holds no chart files", archive);
  return files;
}
