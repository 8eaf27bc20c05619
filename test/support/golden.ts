/**
 * Golden files of the compiler: for every RGD in test/fixtures/rgd/<name>.yaml, the CRD it
 * synthesises and its pictures, in test/golden/. The golden test compares against these files;
 * only `npm run refresh:golden` (scripts/refresh-golden.mjs) rewrites them, on purpose.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadYaml, toYaml } from "../../src/api/index.js";
import { formatIssue } from "../../src/diag/index.js";
import { compileRgd, graphPicture, PICTURE_FORMATS, type PictureFormat } from "../../src/graph/index.js";
import { schemaResolverFor } from "../../src/cli/inputs/inputs.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const FIXTURE_DIR = path.join(ROOT, "test/fixtures/rgd");
export const GOLDEN_DIR = path.join(ROOT, "test/golden");

const EXTENSIONS: Readonly<Record<PictureFormat, string>> = { text: "txt", mermaid: "mmd", dot: "dot" };

export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => f.slice(0, -".yaml".length))
    .sort();
}

/** File name (inside GOLDEN_DIR) → expected content, for one fixture. */
export async function goldenFiles(name: string): Promise<Record<string, string>> {
  const file = path.join(FIXTURE_DIR, `${name}.yaml`);
  const [document] = loadYaml(file, readFileSync(file, "utf8")).documents;
  const result = compileRgd(document?.value, { resolver: await schemaResolverFor() });
  if (result.graph === undefined)
    throw new Error(`${file} does not compile:\n${result.issues.map(formatIssue).join("\n")}`);
  const graph = result.graph;
  const files: Record<string, string> = { [`${name}.crd.yaml`]: toYaml(graph.crd) };
  for (const format of PICTURE_FORMATS) files[`${name}.graph.${EXTENSIONS[format]}`] = graphPicture(graph, format);
  return files;
}
