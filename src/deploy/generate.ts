/**
 * `npm run generate:deploy`: writes every generated deploy file from charts/kro-ts and src/api.
 * `--check` writes nothing and exits 1 listing the stale files (what the unit test asserts).
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { CHART_DIR, generateDeployFiles } from "./manifest.js";
import { REPO_ROOT, loadChart } from "./chart-files.js";

/** Generated path → expected content, for the chart in the repository. */
export async function expectedDeployFiles(root = REPO_ROOT): Promise<Map<string, string>> {
  return generateDeployFiles(await loadChart(path.join(root, CHART_DIR)));
}

/** Paths whose committed content differs from what the generator produces. */
export async function staleDeployFiles(root = REPO_ROOT): Promise<string[]> {
  const stale: string[] = [];
  for (const [file, content] of await expectedDeployFiles(root)) {
    const current = await readFile(path.join(root, file), "utf8").catch(() => undefined);
    if (current !== content) stale.push(file);
  }
  return stale;
}

async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--check")) {
    const stale = await staleDeployFiles();
    for (const file of stale) console.error(`stale: ${file} (run npm run generate:deploy)`);
    return stale.length === 0 ? 0 : 1;
  }
  for (const [file, content] of await expectedDeployFiles()) {
    await writeFile(path.join(REPO_ROOT, file), content);
    console.log(`wrote ${file}`);
  }
  return 0;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
