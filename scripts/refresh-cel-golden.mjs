#!/usr/bin/env node
// Re-records the CEL golden file from real cel-go: builds go/cel-oracle (cel-go v0.23.2 with the
// libraries kro and Kubernetes 1.33's API server enable) and runs every case of
// test/data/expr/cel-go-cases.ts, writing test/data/expr/cel-go-golden.json. Run after
// `npm run build`, and only on purpose: the file is what src/expr/cel-go-differential.test.ts
// trusts. The first build compiles cel-go and part of k8s.io/apiserver (2–3 minutes on two busy
// cores), which is why the test reads this file instead of running the oracle itself.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const { celGoCases } = await import(path.join(root, "dist/test/data/expr/cel-go-cases.js"));
const cases = JSON.parse(JSON.stringify(celGoCases));
const out = execFileSync("go", ["run", "."], {
  cwd: path.join(root, "go/cel-oracle"),
  env: { ...process.env, GOFLAGS: "-mod=mod -buildvcs=false", GOWORK: "off" },
  input: JSON.stringify(cases),
  maxBuffer: 256 << 20,
});
const results = JSON.parse(out.toString("utf8"));
// The oracle's source, so that the test notices an oracle changed without re-recording.
const hash = createHash("sha256");
for (const file of ["main.go", "go.mod", "go.sum"]) hash.update(readFileSync(path.join(root, "go/cel-oracle", file)));
const oracle = hash.digest("hex").slice(0, 16);
// One case and its answer per line, so a refresh shows as a readable diff.
const lines = cases.map((c, i) => JSON.stringify({ ...c, cel_go: results[i] }));
writeFileSync(
  path.join(root, "test/data/expr/cel-go-golden.json"),
  `{"oracle": "${oracle}", "cases": [\n${lines.join(",\n")}\n]}\n`,
);
console.log(`recorded ${results.length} cel-go results`);
