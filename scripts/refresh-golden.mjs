#!/usr/bin/env node
// Rewrites test/golden/ from test/fixtures/rgd/*.yaml (CRD + text/mermaid/dot pictures). Run
// after `npm run build` and only on purpose: the golden test trusts these files. Review the diff.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const { GOLDEN_DIR, fixtureNames, goldenFiles } = await import(path.join(root, "dist/test/support/golden.js"));
mkdirSync(GOLDEN_DIR, { recursive: true });
for (const stale of readdirSync(GOLDEN_DIR)) rmSync(path.join(GOLDEN_DIR, stale), { recursive: true });
let count = 0;
for (const name of fixtureNames()) {
  for (const [file, content] of Object.entries(await goldenFiles(name))) {
    writeFileSync(path.join(GOLDEN_DIR, file), content);
    count++;
  }
}
// The kro compatibility corpus: the CRD of every RGD it expects accepted.
const corpus = await import(path.join(root, "dist/test/unit-support/graph/kro-corpus.js"));
const corpusDir = path.join(GOLDEN_DIR, "kro-corpus");
mkdirSync(corpusDir, { recursive: true });
for (const c of corpus.corpusCases()) {
  if (c.expect !== "accept") continue;
  const outcome = corpus.compileCorpusCase(c);
  if (outcome.crdYaml === undefined) throw new Error(`kro-corpus/${c.name}.yaml is expected to compile but does not`);
  writeFileSync(path.join(corpusDir, `${c.name}.crd.yaml`), outcome.crdYaml);
  count++;
}
console.log(`wrote ${count} golden files to ${path.relative(root, GOLDEN_DIR)}/`);
