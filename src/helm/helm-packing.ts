/**
 * How `spec.helm` is written: as text, readable and diffable, unless the RGD would then be too
 * large to store comfortably (over 512 KiB as JSON) — then every template and file of 4 KiB or more
 * goes into `templatesGzip`/`filesGzip` as base64 gzip (graph/helm/helm-compression.ts), largest charts'
 * CRD templates first among the savings; the chart's default values likewise become `valuesGzip`
 * (their JSON). Small entries stay text either way.
 */
import { gzipText, type HelmContext } from "../graph/index.js";

/** Above this size (the RGD as JSON) large entries are gzipped. */
export const PACK_ABOVE_BYTES = 512 * 1024;
/** Entries smaller than this stay text: gzip and base64 would save little and cost readability. */
const PACK_ENTRY_BYTES = 4 * 1024;

type Packed = Record<string, unknown>;

function split(entries: Readonly<Record<string, string>>): {
  plain: Record<string, string>;
  gzipped: Record<string, string>;
} {
  const plain: Record<string, string> = {};
  const gzipped: Record<string, string> = {};
  for (const [name, text] of Object.entries(entries)) {
    if (Buffer.byteLength(text) >= PACK_ENTRY_BYTES) gzipped[name] = gzipText(text);
    else plain[name] = text;
  }
  return { plain, gzipped };
}

/** `helm` as the RGD carries it; `rgdBytes` is the RGD's JSON size with every entry as text. */
export function packHelm(helm: HelmContext, rgdBytes: number): Packed {
  if (rgdBytes <= PACK_ABOVE_BYTES) return { ...helm };
  const templates = split(helm.templates);
  const { values, ...rest } = helm;
  const valuesJson = values === undefined ? undefined : JSON.stringify(values);
  return {
    ...rest,
    ...(valuesJson === undefined
      ? {}
      : Buffer.byteLength(valuesJson) >= PACK_ENTRY_BYTES
        ? { valuesGzip: gzipText(valuesJson) }
        : { values }),
    templates: templates.plain,
    ...(Object.keys(templates.gzipped).length > 0 ? { templatesGzip: templates.gzipped } : {}),
    charts: helm.charts.map((chart) => {
      const files = split(chart.files);
      return {
        ...chart,
        files: files.plain,
        ...(Object.keys(files.gzipped).length > 0 ? { filesGzip: files.gzipped } : {}),
      };
    }),
  };
}
