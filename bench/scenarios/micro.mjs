// Micro-benchmarks (benchmarks.md): CEL evaluations per second for typical kro expressions, Go
// template renders per second for the seed templates (examples/nginx), and the compile time of a
// 100-resource RGD (bench/micro-compile.mjs). Regression guards, in this process, over dist/.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { parse as parseYaml } from "yaml";
import { log } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";

export const CEL_EXPRESSIONS = [
  "schema.spec.replicas > 1",
  "schema.metadata.name + '-config'",
  "string(schema.spec.replicas)",
  "deploy.status.?availableReplicas.orValue(0) >= deploy.spec.replicas",
  "service.spec.clusterIP != ''",
  "schema.spec.regions.map(r, r + '-' + schema.metadata.name)",
  "schema.spec.regions.exists(r, r == 'eu')",
  "has(schema.spec.ingress) && schema.spec.ingress.enabled",
];

const DATA = {
  schema: {
    metadata: { name: "demo", namespace: "default" },
    spec: { replicas: 3, regions: ["eu", "us", "ap"], ingress: { enabled: true } },
  },
  deploy: { spec: { replicas: 3 }, status: { availableReplicas: 3 } },
  service: { spec: { clusterIP: "10.0.0.42" } },
};

const NGINX_VALUES = {
  parent: {
    metadata: { name: "demo", namespace: "default" },
    spec: {
      replicas: 2,
      image: { repository: "nginx", tag: "1.27", pullPolicy: "IfNotPresent" },
      service: { port: 80, type: "ClusterIP" },
      resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m", memory: "64Mi" } },
      ingress: { enabled: true, hosts: [{ host: "demo.example.com", paths: [{ path: "/", pathType: "Prefix" }] }] },
    },
  },
};

/** Runs `fn` in batches for at least `ms` (after a warm-up) and returns operations per second, per repetition. */
function opsPerSecond(fn, repeat, ms = 1000) {
  for (let i = 0; i < 200; i++) fn();
  const rates = [];
  for (let r = 0; r < repeat; r++) {
    let ops = 0;
    const started = performance.now();
    while (performance.now() - started < ms) {
      for (let i = 0; i < 100; i++) fn();
      ops += 100;
    }
    rates.push(ops / ((performance.now() - started) / 1000));
  }
  return summarize(rates);
}

export async function runMicro(root, args) {
  const expr = await import(path.join(root, "dist/src/expr/index.js"));
  const template = await import(path.join(root, "dist/src/template/index.js"));
  log("micro: CEL evaluations");
  const env = expr.createKroCelEnvironment({ enableRuntime: true });
  const programs = CEL_EXPRESSIONS.map((source) => expr.compileExpression(env, source));
  const variables = Object.fromEntries(Object.entries(DATA).map(([k, v]) => [k, expr.jsonToCel(v)]));
  let next = 0;
  const cel = opsPerSecond(() => {
    programs[next++ % programs.length].evaluate(variables);
  }, args.repeat);

  log("micro: Go template renders (examples/nginx seed templates)");
  const rgd = parseYaml(await readFile(path.join(root, "examples/nginx/nginxapp-rgd.yaml"), "utf8"));
  const texts = rgd.spec.childResources.flatMap((c, i) => [
    [`child${i}.name`, c.nameTemplate],
    [`child${i}`, c.template],
    ...(c.condition ? [[`child${i}.condition`, c.condition]] : []),
  ]);
  const templates = texts.map(([name, text]) => template.parseTemplate(name, text));
  let t = 0;
  const renders = opsPerSecond(() => {
    template.renderTemplate(templates[t++ % templates.length], NGINX_VALUES);
  }, args.repeat);

  log("micro: compile a 100-resource RGD");
  const { stdout } = await promisify(execFile)(process.execPath, [
    path.join(root, "bench/micro-compile.mjs"),
    "--runs",
    String(Math.max(5, args.repeat)),
  ]);
  const compile = JSON.parse(stdout);
  return {
    scenario: "micro",
    celExpressions: CEL_EXPRESSIONS,
    templates: texts.map(([name]) => name),
    summary: { celEvaluationsPerSecond: round(cel.median, 0), templateRendersPerSecond: round(renders.median, 0) },
    celEvaluationsPerSecond: cel,
    templateRendersPerSecond: renders,
    compile: {
      resources: compile.resources,
      medianMs: compile.medianMs,
      minMs: compile.minMs,
      maxMs: compile.maxMs,
      samplesMs: compile.samplesMs,
    },
  };
}
