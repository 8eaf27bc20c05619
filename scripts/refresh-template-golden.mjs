#!/usr/bin/env node
// Re-records src/template/testdata/golden.json from real Go: builds go/template-oracle (Go's
// text/template + Sprig v3 + Helm's toYaml/required) and runs every case of golden-cases.ts.
// Run after `npm run build`, and only on purpose: the file is what the golden test trusts.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const { goldenCases } = await import(path.join(root, "dist/src/template/golden-cases.js"));
const input = JSON.stringify(goldenCases.map((c) => ({ t: c.t, data: c.data ?? {}, missingKey: c.missingKey ?? "default", integers: c.integers ?? "int64" })));
const out = execFileSync("go", ["run", "."], { cwd: path.join(root, "go/template-oracle"), input, maxBuffer: 64 << 20 });
const results = JSON.parse(out.toString("utf8"));
writeFileSync(path.join(root, "src/template/testdata/golden.json"), `${JSON.stringify({ cases: goldenCases.map((c) => ({ t: c.t })), results }, null, 1)}\n`);
console.log(`recorded ${results.length} golden results`);
