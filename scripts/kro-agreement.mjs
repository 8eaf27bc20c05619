#!/usr/bin/env node
// Measures how far kro-ts agrees with real kro on the compatibility corpus
// (test/fixtures/kro-corpus): kro v0.9.3's own graph builder (go/kro-oracle, built once into
// ~/.cache/kro-ts/tools) judges every RGD against a local API server (minimal mode: discovery
// and OpenAPI are all the builder needs), after the API server itself admitted the RGD against
// kro's own ResourceGraphDefinition CRD (its patterns and CEL rules reject some RGDs before kro's
// builder ever sees them), kro-ts compiles the same files offline, and the script
// prints the verdict agreement, the CRD agreement for RGDs both accept, and every disagreement.
// Usage (after npm run build): node scripts/kro-agreement.mjs [--json]
import { execFile } from "node:child_process";
import { access, readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual, promisify } from "node:util";
import { parse } from "yaml";

const run = promisify(execFile);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const oracleVersion = "v0.9.3";
const oracle = path.join(homedir(), ".cache/kro-ts/tools", `kro-oracle-${oracleVersion}`);

async function ensureOracle() {
  try {
    await access(oracle);
  } catch {
    console.error(`building ${oracle} from go/kro-oracle (first run: a few minutes)`);
    await run("go", ["build", "-o", oracle, "."], { cwd: path.join(root, "go/kro-oracle"), maxBuffer: 1 << 24 });
  }
}

const { startLocalCluster } = await import(path.join(root, "dist/src/localcluster/index.js"));
const { corpusCases, compileCorpusCase, CORPUS_DIR } = await import(
  path.join(root, "dist/test/unit-support/graph/kro-corpus.js")
);

await ensureOracle();
const cases = corpusCases();
const cluster = await startLocalCluster({ mode: "minimal", env: process.env });
let verdicts;
try {
  const kubectl = (args) => run("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args], { maxBuffer: 1 << 24 });
  const { stdout: modCache } = await run("go", ["env", "GOMODCACHE"]);
  const kroCrd = path.join(
    modCache.trim(),
    `github.com/kubernetes-sigs/kro@${oracleVersion}/website/versioned_docs/version-${oracleVersion.slice(1)}/api/crds/kro.run_resourcegraphdefinitions.yaml`,
  );
  await kubectl(["apply", "--server-side", "-f", kroCrd]);
  await kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd/resourcegraphdefinitions.kro.run"]);
  const admission = new Map();
  for (const c of cases) {
    const file = new URL(`${c.name}.yaml`, CORPUS_DIR).pathname;
    admission.set(
      c.name,
      await kubectl(["create", "--dry-run=server", "-f", file]).then(
        () => undefined,
        (e) => String(e.stderr ?? e).trim(),
      ),
    );
  }
  const files = cases.map((c) => new URL(`${c.name}.yaml`, CORPUS_DIR).pathname);
  const { stdout } = await run(oracle, [cluster.kubeconfigPath, ...files], { maxBuffer: 1 << 28 });
  verdicts = new Map(
    stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .map((v) => {
        const name = path.basename(v.file, ".yaml");
        const refused = admission.get(name);
        return [name, refused === undefined ? v : { ...v, accepted: false, error: `API server: ${refused}` }];
      }),
  );
} finally {
  await cluster.stop();
}

const goldenDir = path.join(root, "test/golden/kro-corpus");
const golden = new Set(await readdir(goldenDir));
const rows = [];
for (const c of cases) {
  const kro = verdicts.get(c.name);
  const ours = compileCorpusCase(c);
  let crd = "n/a";
  if (kro?.accepted && ours.accepted && golden.has(`${c.name}.crd.yaml`)) {
    const mine = parse(await readFile(path.join(goldenDir, `${c.name}.crd.yaml`), "utf8"));
    const theirs = kro.crd;
    const version = (x) => x?.spec?.versions?.[0] ?? {};
    const same = (pick) => isDeepStrictEqual(pick(mine), pick(theirs));
    crd =
      same((x) => version(x).schema) &&
      same((x) => version(x).additionalPrinterColumns ?? []) &&
      same((x) => x?.spec?.names)
        ? "same"
        : "differs";
  }
  rows.push({
    name: c.name,
    expected: c.expect,
    kro: kro?.accepted ? "accept" : "reject",
    ours: ours.accepted ? "accept" : "reject",
    kroError: kro?.error ?? "",
    crd,
    ...(crd === "differs" ? { kroCrd: kro.crd } : {}),
  });
}

const agree = rows.filter((r) => r.kro === r.ours);
const bothAccept = rows.filter((r) => r.crd !== "n/a");
const summary = {
  kroVersion: oracleVersion,
  total: rows.length,
  verdictAgreement: agree.length,
  kroAccepts: rows.filter((r) => r.kro === "accept").length,
  oursAccepts: rows.filter((r) => r.ours === "accept").length,
  expectationsMatchingKro: rows.filter((r) => r.expected === r.kro).length,
  crdCompared: bothAccept.length,
  crdSame: bothAccept.filter((r) => r.crd === "same").length,
};
if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ summary, rows }, null, 2));
} else {
  console.log(summary);
  for (const r of rows.filter((x) => x.kro !== x.ours || x.expected !== x.kro)) {
    console.log(
      `- ${r.name}: kro ${r.kro}, kro-ts ${r.ours}, corpus expects ${r.expected}${r.kroError ? ` — kro: ${r.kroError.slice(0, 200)}` : ""}`,
    );
  }
  for (const r of bothAccept.filter((x) => x.crd === "differs"))
    console.log(`- ${r.name}: CRD differs (--json shows kro's)`);
}
