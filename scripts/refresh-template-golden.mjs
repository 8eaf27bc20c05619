#!/usr/bin/env node
// Re-records the template golden files from real Go: builds go/template-oracle (Go's
// text/template + Sprig v3 + Helm's toYaml/required, and Helm 3.18.6's own engine) and runs
// every case of test/data/template/golden-cases.ts (-> golden.json beside it) and
// helm-golden-cases.ts (-> helm-golden.json). Run after `npm run build`, and only on purpose:
// the files are what the golden tests trust.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const oracle = (cases) => {
  const out = execFileSync("go", ["run", "."], {
    cwd: path.join(root, "go/template-oracle"),
    input: JSON.stringify(cases),
    maxBuffer: 256 << 20,
  });
  return JSON.parse(out.toString("utf8"));
};
const write = (file, value) =>
  writeFileSync(path.join(root, "test/data/template", file), `${JSON.stringify(value, null, 1)}\n`);

const { goldenCases } = await import(path.join(root, "dist/test/data/template/golden-cases.js"));
const results = oracle(
  goldenCases.map((c) => ({
    t: c.t,
    data: c.data ?? {},
    missingKey: c.missingKey ?? "default",
    integers: c.integers ?? "int64",
  })),
);
write("golden.json", { cases: goldenCases.map((c) => ({ t: c.t })), results });
console.log(`recorded ${results.length} golden results`);

const { helmGoldenCases } = await import(path.join(root, "dist/test/data/template/helm-golden-cases.js"));
const helmResults = oracle(helmGoldenCases.map((c) => ({ helm: c })));
write("helm-golden.json", { cases: helmGoldenCases, results: helmResults });
console.log(`recorded ${helmResults.length} Helm golden results`);
