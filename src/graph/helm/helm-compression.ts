/**
 * Large chart text in `spec.helm`, gzipped: `templatesGzip` beside `templates` and `filesGzip`
 * beside a chart's `files` hold base64 gzip of the same strings. A chart that carries its CRDs as
 * templates (a GitOps server with subcharts: 1.8 MB of CRD text) would otherwise make an RGD over
 * the API server's 2 MiB request limit and etcd's 1.5 MiB object limit; such text shrinks ~10×.
 * `kro import helm` compresses only what it must (helm/helm-packing.ts), so small charts stay
 * readable. Decoding is bounded, so an RGD cannot make the compiler inflate a gzip bomb.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import { isRecord } from "../is-record.js";

/** Largest text one entry may inflate to. */
export const MAX_INFLATED_ENTRY_BYTES = 8 * 1024 * 1024;
/** Largest text all compressed entries of one RGD may inflate to together. */
export const MAX_INFLATED_TOTAL_BYTES = 64 * 1024 * 1024;

export function gzipText(text: string): string {
  return gzipSync(Buffer.from(text, "utf8"), { level: 9 }).toString("base64");
}

/** What the decoder has inflated so far for one RGD (its total is bounded). */
export interface InflateBudget {
  used: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The strings of a `templatesGzip`/`filesGzip` map, inflated; every bad entry is an issue at its
 * path (not base64, not gzip, not UTF-8, too large), and a name also given as plain text is one too.
 */
export function inflateRecord(
  value: unknown,
  plain: Readonly<Record<string, string>>,
  path: IssuePath,
  budget: InflateBudget,
  issues: Issue[],
): Record<string, string> {
  if (value === undefined) return {};
  const field = path.join(".");
  if (!isRecord(value)) {
    issues.push(error("rgd.invalid-field", path, `${field} must be a map of names to base64 gzip`));
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, encoded] of Object.entries(value)) {
    const at = [...path, name];
    if (Object.hasOwn(plain, name)) {
      issues.push(error("rgd.invalid-field", at, `${name} is given both as text and gzipped: keep one`));
      continue;
    }
    if (typeof encoded !== "string" || !BASE64.test(encoded.replace(/\s+/g, ""))) {
      issues.push(error("rgd.invalid-field", at, `${field} values must be base64 of gzip data`));
      continue;
    }
    const limit = Math.min(MAX_INFLATED_ENTRY_BYTES, MAX_INFLATED_TOTAL_BYTES - budget.used);
    let bytes: Buffer;
    try {
      bytes = gunzipSync(Buffer.from(encoded, "base64"), { maxOutputLength: Math.max(1, limit) });
    } catch (e) {
      const tooLarge = (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError;
      issues.push(
        error(
          "rgd.invalid-field",
          at,
          tooLarge
            ? `inflates past ${limit === MAX_INFLATED_ENTRY_BYTES ? "8 MiB, the limit of one entry" : "64 MiB, the limit of all gzipped entries of an RGD"}`
            : `not gzip data (${(e as Error).message})`,
        ),
      );
      continue;
    }
    budget.used += bytes.length;
    try {
      out[name] = utf8.decode(bytes);
    } catch {
      issues.push(error("rgd.invalid-field", at, "inflates to bytes that are not UTF-8 text"));
    }
  }
  return out;
}
