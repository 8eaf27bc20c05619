/**
 * The kro compatibility corpus (test/fixtures/kro-corpus/*.yaml): RGDs written here, each with
 * its expected verdict in header comments — `# expect: accept|reject`, `# error: <substring>`,
 * `# warning: <substring>`, `# options: strict`, and `# kro: <file and function>` naming where in
 * kro's source the expectation comes from. Accepted RGDs have their CRD recorded in
 * test/golden/kro-corpus/ (rewritten only by `npm run refresh:golden`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { loadYaml, toYaml } from "../../../src/api/index.js";
import type { Issue } from "../../../src/diag/index.js";
import { createKroCelEnvironment } from "../../../src/expr/index.js";
import { compileRgd } from "../../../src/graph/compile.js";
import { builtinSchemaResolver, type BuiltinSchemaBundle } from "../../../src/graph/schema-resolver.js";

const root = new URL("../../../../", import.meta.url);
export const CORPUS_DIR = new URL("test/fixtures/kro-corpus/", root);
export const CORPUS_GOLDEN_DIR = new URL("test/golden/kro-corpus/", root);

export interface CorpusCase {
  readonly name: string;
  readonly expect: "accept" | "reject";
  readonly error?: string;
  readonly warning?: string;
  readonly strict: boolean;
  readonly kro: string;
  readonly text: string;
}

export interface CorpusOutcome {
  readonly accepted: boolean;
  /** Compile issues plus YAML warnings. */
  readonly issues: readonly Issue[];
  readonly crdYaml?: string;
}

function header(text: string, key: string): string | undefined {
  const match = new RegExp(`^# ${key}: ?(.*)$`, "m").exec(text);
  return match?.[1]?.trim();
}

export function corpusCases(): CorpusCase[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => {
      const text = readFileSync(new URL(file, CORPUS_DIR), "utf8");
      const expect = header(text, "expect");
      if (expect !== "accept" && expect !== "reject") throw new Error(`${file}: "# expect: accept|reject" is missing`);
      const error = header(text, "error");
      const warning = header(text, "warning");
      return {
        name: file.slice(0, -".yaml".length),
        expect,
        strict: header(text, "options") === "strict",
        kro: header(text, "kro") ?? "",
        text,
        ...(error === undefined ? {} : { error }),
        ...(warning === undefined ? {} : { warning }),
      };
    });
}

let resolver: ReturnType<typeof builtinSchemaResolver> | undefined;
const env = createKroCelEnvironment({ enableRuntime: true });

export function compileCorpusCase(c: CorpusCase): CorpusOutcome {
  resolver ??= builtinSchemaResolver(
    JSON.parse(
      gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
    ) as BuiltinSchemaBundle,
  );
  const loaded = loadYaml(`${c.name}.yaml`, c.text);
  const yamlIssues = [...loaded.problems, ...loaded.warnings].map((l) => l.issue);
  const document = loaded.documents[0];
  if (document === undefined) return { accepted: false, issues: yamlIssues };
  const result = compileRgd(document.value, { resolver, env, unknownKinds: c.strict ? "error" : "warn" });
  const issues = [...yamlIssues, ...result.issues];
  return result.graph === undefined
    ? { accepted: false, issues }
    : { accepted: true, issues, crdYaml: toYaml(result.graph.crd) };
}
