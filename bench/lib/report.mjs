// The closing table (one row per figure, with its target and whether it is met) and the raw JSON
// files `bench-results/<scenario>-<timestamp>.json`.
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export function environment(bench, versions) {
  return {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    totalMemoryMb: Math.round(os.totalmem() / 1024 / 1024),
    node: process.version,
    ...versions,
    clusterMode: bench.args.cluster,
    controller: {
      workers: bench.args.workers,
      clientQps: bench.args.qps,
      clientBurst: bench.args.burst,
      nodeFlags: bench.args.nodeFlags ?? "image",
    },
    command: `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim(),
  };
}

export async function writeResult(dir, result, env, startedAt) {
  await mkdir(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  const file = path.join(dir, `${result.scenario}-${stamp}.json`);
  await writeFile(
    file,
    `${JSON.stringify({ ...result, environment: env, startedAt: startedAt.toISOString() }, null, 2)}\n`,
  );
  return file;
}

const fmt = (v) =>
  v === null || v === undefined ? "—" : typeof v === "number" ? String(Math.round(v * 1000) / 1000) : String(v);
const stat = (s, unit) =>
  s === null || s === undefined
    ? "—"
    : typeof s === "number"
      ? `${fmt(s)}${unit}`
      : `${fmt(s.median)}${unit} (${fmt(s.min)}–${fmt(s.max)})`;

/** Rows: [scenario, figure, value, target, met]. */
export function rows(result) {
  const s = result.summary;
  switch (result.scenario) {
    case "fanout":
      return [
        ["fanout", `instances × children`, `${result.instances} × ${result.childrenPerInstance}`, "", ""],
        ["fanout", "time until all Ready", stat(s.convergeMs, " ms"), "", ""],
        ...(s.baselineMs?.n > 0
          ? [
              ["fanout", "null baseline (same objects)", stat(s.baselineMs, " ms"), "", ""],
              [
                "fanout",
                "throughput / null baseline",
                stat(s.ratioToBaseline, ""),
                ">= 0.6",
                met(s.ratioToBaseline?.median >= 0.6),
              ],
            ]
          : [["fanout", "null baseline", "skipped (--skip-baseline)", "", ""]]),
        [
          "fanout",
          "time-to-Ready p50 / p99",
          `${stat(s.timeToReadyP50Ms?.median, " ms")} / ${stat(s.timeToReadyP99Ms?.median, " ms")}`,
          "",
          "",
        ],
        ["fanout", "writes per instance (API server)", stat(s.writesPerInstance, ""), "", ""],
        ["fanout", "reconciles per instance", stat(s.reconcilesPerInstance, ""), "", ""],
        [
          "fanout",
          "instances in flight: limit peak / median",
          (result.repetitions ?? [])
            .map((r) => `${fmt(r.concurrencyLimit?.peak)} / ${fmt(r.concurrencyLimit?.median)}`)
            .join(", "),
          "",
          "",
        ],
        [
          "fanout",
          "requests per instance by verb",
          JSON.stringify(result.repetitions[0]?.requestsPerInstanceByVerb ?? {}),
          "",
          "",
        ],
        ["fanout", "controller CPU-seconds", stat(s.cpuSeconds, " s"), "", ""],
        [
          "fanout",
          "controller RSS converged / peak",
          `${stat(s.convergedRssMb?.median, " MB")} / ${stat(s.peakRssMb?.median, " MB")}`,
          result.instances === 1000 ? "< 200 MB" : "",
          result.instances === 1000 ? met(s.convergedRssMb?.median < 200) : "",
        ],
        [
          "fanout",
          "controller RSS idle",
          stat(s.idleRssMb?.median, " MB"),
          result.instances === 1000 ? "<= 150 MB" : "",
          result.instances === 1000 ? met(s.idleRssMb?.median <= 150) : "",
        ],
        [
          "fanout",
          "RSS per 1,000 instances converged / idle",
          `${stat(s.convergedRssPer1000Mb?.median, " MB")} / ${stat(s.idleRssPer1000Mb?.median, " MB")}`,
          "<= 107 MB",
          met(s.idleRssPer1000Mb?.median <= 107),
        ],
        ...(s.deleteAllMs?.n > 0
          ? [["fanout", "controller deletes all instances", stat(s.deleteAllMs, " ms"), "", ""]]
          : []),
      ];
    case "depth":
      return [
        [
          "depth",
          "chain, one instance alone (total)",
          stat(s.singleChainMs, " ms"),
          "< 3000 ms",
          met(s.singleChainMs?.median < 3000),
        ],
        ["depth", "chain, per level (alone)", stat(s.singlePerLevelMs, " ms"), "", ""],
        [
          "depth",
          `chain under load p50 / p99 (${result.instances} at once)`,
          `${stat(s.loadedChainP50Ms, " ms")} / ${stat(s.loadedChainP99Ms, " ms")}`,
          "< 3000 ms",
          met(s.loadedChainP99Ms?.median < 3000),
        ],
        ["depth", "all instances Ready", stat(s.convergeMs, " ms"), "", ""],
        ["depth", "null baseline (same objects)", stat(s.baselineMs, " ms"), "", ""],
        ["depth", "throughput / null baseline", stat(s.ratioToBaseline, ""), "", ""],
        [
          "depth",
          "update storm propagation p50 / p99",
          `${stat(s.stormP50Ms, " ms")} / ${stat(s.stormP99Ms, " ms")}`,
          "",
          "",
        ],
        ["depth", "update storm, all propagated", stat(s.stormAllMs, " ms"), "", ""],
        ["depth", "peak RSS during storm", stat(s.stormPeakRssMb, " MB"), "", ""],
        [
          "depth",
          "CEL evaluations per no-op reconcile / first reconcile",
          `${fmt(result.celEvaluationsPerReconcile)} / ${fmt(result.celEvaluationsFirstReconcile)} (${fmt(result.runtimePassesFirstReconcile)} passes)`,
          "",
          "",
        ],
        ["depth", "RGD compile time", stat(result.compileMs, " ms"), "", ""],
        ...(s.deleteAllMs?.n > 0
          ? [["depth", "controller deletes all instances", stat(s.deleteAllMs, " ms"), "", ""]]
          : []),
      ];
    case "steady":
      return [
        ["steady", "converged instances", fmt(result.instances), "", ""],
        [
          "steady",
          "writes per no-op reconcile (resync)",
          stat(s.writesPerNoopReconcile, ""),
          "0",
          met(s.writesPerNoopReconcile?.median === 0),
        ],
        [
          "steady",
          "writes while idle (per minute)",
          stat(s.idleWritesPerMinute, ""),
          "0",
          met(s.idleWritesPerMinute?.median === 0),
        ],
        ["steady", "cold-start resync of all instances", stat(s.coldStartMs, " ms"), "", ""],
        [
          "steady",
          "drift restore (deleted child) median / p99",
          `${stat(result.drift.median, " ms")} / ${stat(result.drift.p99, " ms")}`,
          "< 1000 ms",
          met(result.drift.median < 1000),
        ],
        [
          "steady",
          "deletion latency median / p99",
          `${stat(result.deletion.median, " ms")} / ${stat(result.deletion.p99, " ms")}`,
          "",
          "",
        ],
        [
          "steady",
          "idle RSS",
          stat(s.idleRssMb, " MB"),
          result.instances >= 1000 ? "< 200 MB" : "",
          result.instances >= 1000 ? met(s.idleRssMb?.median < 200) : "",
        ],
      ];
    case "delete":
      return [
        ["delete", "instances × children", `${result.instances} × ${result.childrenPerInstance}`, "", ""],
        ["delete", "controller deletes all instances", stat(s.deleteMs, " ms"), "", ""],
        ["delete", "null baseline deletes the same children", stat(s.baselineDeleteMs, " ms"), "", ""],
        [
          "delete",
          "controller / null baseline",
          stat(s.ratioToBaseline, ""),
          "< 2",
          met(s.ratioToBaseline?.median < 2),
        ],
        ["delete", "children left behind", stat(s.childrenLeft, ""), "0", met(s.childrenLeft?.median === 0)],
        [
          "delete",
          "requests per instance by verb",
          JSON.stringify(result.repetitions[0]?.requestsPerInstanceByVerb ?? {}),
          "",
          "",
        ],
      ];
    case "kinds":
      return [
        ["kinds", "RGDs × instances each", `${result.kinds} × ${result.instancesPerKind}`, "", ""],
        ["kinds", "time until all RGDs Active", `${fmt(s.allActiveMs)} ms`, "", ""],
        ["kinds", "time until all instances Ready", `${fmt(s.allReadyMs)} ms`, "", ""],
        ["kinds", "open sockets max / idle", `${fmt(s.maxOpenSockets)} / ${fmt(s.idleOpenSockets)}`, "", ""],
        [
          "kinds",
          "p99 socket-pool wait / rate-limiter wait",
          `${fmt(s.poolWaitP99Ms)} ms / ${fmt(s.rateLimitWaitP99Ms)} ms`,
          "",
          "",
        ],
        [
          "kinds",
          "lease renewal failures / leadership lost",
          `${fmt(s.leaseRenewalFailures)} / ${fmt(s.leadershipLost)}`,
          "0",
          met(s.leaseRenewalFailures === 0 && s.leadershipLost === 0),
        ],
        ["kinds", "largest gap between Lease renewals", `${fmt(s.leaseMaxRenewalGapMs)} ms`, "", ""],
        ["kinds", "controller RSS peak / idle", `${fmt(s.peakRssMb)} MB / ${fmt(s.idleRssMb)} MB`, "", ""],
      ];
    case "restart":
      return [
        ["restart", "converged instances", fmt(result.instances), "", ""],
        ...apiServerRestartRows(s.apiServerRestart),
        ...(s.killToReadyMs.length === 0
          ? []
          : [
              [
                "restart",
                "leader kill -9, standby: new instance Ready after the kill",
                s.killToReadyMs.map((v) => `${v} ms`).join(", "),
                "< 20000 ms",
                met(s.killToReadyMs.every((v) => v < 20000)),
              ],
            ]),
        ...((s.pauseTakeoverMs ?? []).length === 0
          ? []
          : [
              [
                "restart",
                "leader paused (SIGSTOP): standby holds the Lease after",
                s.pauseTakeoverMs.map((v) => `${v} ms`).join(", "),
                "",
                "",
              ],
              [
                "restart",
                "…resumed: its writes received after the takeover (audit)",
                (s.writesAfterTakeover ?? []).join(", "),
                "0",
                met((s.writesAfterTakeover ?? []).every((v) => v === 0)),
              ],
            ]),
      ];
    case "versions":
      return [
        ["versions", "instances (GET samples per version)", `${result.instances} (${result.samples})`, "", ""],
        ["versions", "GET p50 / p99, stored version", `${fmt(s.getPlainMs.p50)} / ${fmt(s.getPlainMs.p99)} ms`, "", ""],
        [
          "versions",
          "GET p50 / p99, converted by the webhook",
          `${fmt(s.getConvertedMs.p50)} / ${fmt(s.getConvertedMs.p99)} ms`,
          "",
          "",
        ],
        [
          "versions",
          "converted / stored, p50 / p99",
          `${fmt(s.conversionRatioP50)} / ${fmt(s.conversionRatioP99)}`,
          "",
          "",
        ],
        [
          "versions",
          "storage migration / plain update of all",
          `${fmt(s.migrationMs)} ms / ${fmt(s.plainUpdateMs)} ms (${fmt(s.migrationPerSecond)} / ${fmt(s.plainUpdatePerSecond)} objects/s)`,
          "",
          "",
        ],
        ["versions", "migration / plain update", fmt(s.migrationRatioToPlainUpdate), "", ""],
        [
          "versions",
          "migration / stored update (an annotation changed)",
          `${fmt(s.migrationRatioToStoredUpdate)} (${fmt(s.storedUpdateMs)} ms)`,
          "",
          "",
        ],
      ];
    case "clusters":
      return [
        ["clusters", "instances × children", `${result.instances} × ${result.childrenPerInstance}`, "", ""],
        ["clusters", "all in the hub: all Ready", stat(s.oneClusterMs, " ms"), "", ""],
        ["clusters", "half in a member cluster: all Ready", stat(s.twoClustersMs, " ms"), "", ""],
        ["clusters", "two clusters / one cluster (time)", stat(s.ratio, ""), "", ""],
        [
          "clusters",
          "deletion two clusters / one cluster",
          `${stat(s.deleteRatio, "")} (${stat(s.twoClustersDeleteMs?.median, " ms")} / ${stat(s.oneClusterDeleteMs?.median, " ms")})`,
          "",
          "",
        ],
        [
          "clusters",
          "requests per instance, one cluster: hub",
          JSON.stringify(result.repetitions[0]?.one.hubPerInstance ?? {}),
          "",
          "",
        ],
        [
          "clusters",
          "requests per instance, two clusters: hub",
          JSON.stringify(result.repetitions[0]?.two.hubPerInstance ?? {}),
          "",
          "",
        ],
        [
          "clusters",
          "requests per instance, two clusters: member",
          JSON.stringify(result.repetitions[0]?.two.memberPerInstance ?? {}),
          "",
          "",
        ],
        ["clusters", "children left after deletion", stat(s.childrenLeft, ""), "0", met(s.childrenLeft?.median === 0)],
      ];
    case "fairness":
      return [
        [
          "fairness",
          "cheap tenant × expensive tenant",
          `${result.benign} fan-out × ${result.instances} (size ${result.size})`,
          "",
          "",
        ],
        ["fairness", "cheap tenant Ready, alone", stat(s.quietMs, " ms"), "", ""],
        ["fairness", "cheap tenant Ready, beside the expensive one", stat(s.busyMs, " ms"), "", ""],
        ["fairness", "beside / alone", stat(s.ratio, ""), "<= 1.5", met(s.ratio?.median <= 1.5)],
        ["fairness", "expensive tenant Ready (throttled, not failed)", stat(s.hostileMs, " ms"), "", ""],
        ["fairness", "expensive instances per second", stat(s.hostilePerSecond, ""), "", ""],
        [
          "fairness",
          "/healthz failed (4 Hz, 1 s timeout) while busy; slowest answer",
          `${stat(s.healthFailedBusy, "")}; ${stat(s.healthSlowestBusyMs, " ms")}`,
          "0",
          met(s.healthFailedBusy?.max === 0),
        ],
        [
          "fairness",
          "after kill -9 and restart: new cheap instances, first / all Ready",
          `${stat(s.restartFirstReadyMs, " ms")} / ${stat(s.restartAllReadyMs, " ms")}`,
          "first <= 2000 ms",
          met(s.restartFirstReadyMs?.median <= 2000),
        ],
        ["fairness", "after restart, all Ready / alone", stat(s.restartRatio, ""), "", ""],
        [
          "fairness",
          "/healthz failed after the restart",
          stat(s.healthFailedRestart, ""),
          "0",
          met(s.healthFailedRestart?.max === 0),
        ],
      ];
    case "rollout":
      return [
        ["rollout", "instances per RGD", String(result.instances), "", ""],
        ["rollout", "a change reaches every instance, no policy", stat(s.plainMs, " ms"), "", ""],
        ["rollout", "the same change in waves (1% canary, 50%, all; 25% at once)", stat(s.wavesMs, " ms"), "", ""],
        ["rollout", "waves / no policy", stat(s.ratio, ""), "", ""],
        [
          "rollout",
          "writes per instance, no policy / waves",
          `${stat(s.plainWritesPerInstance, "")} / ${stat(s.wavesWritesPerInstance, "")}`,
          "",
          "",
        ],
      ];
    case "admission":
      return [
        [
          "admission",
          "tenant, author-policy checks",
          `${result.tenant}, ${result.checks} checks; ${result.rounds} × ${result.instances} per phase`,
          "",
          "",
        ],
        [
          "admission",
          "create p50 / p99, with the policy",
          `${fmt(s.create.checked.p50)} / ${fmt(s.create.checked.p99)} ms`,
          "",
          "",
        ],
        [
          "admission",
          "create p50 / p99, without",
          `${fmt(s.create.unchecked.p50)} / ${fmt(s.create.unchecked.p99)} ms`,
          "",
          "",
        ],
        [
          "admission",
          "create with / without, p50 (per round)",
          stat(s.createRatioP50, ""),
          "<= 1.2",
          met(s.createRatioP50?.median <= 1.2),
        ],
        ["admission", "create p50 added by the policy", `${fmt(s.create.extraP50Ms)} ms`, "", ""],
        ["admission", "create with / without, p99 (per round)", stat(s.createRatioP99, ""), "", ""],
        [
          "admission",
          "update p50 / p99, with the policy",
          `${fmt(s.update.checked.p50)} / ${fmt(s.update.checked.p99)} ms`,
          "",
          "",
        ],
        [
          "admission",
          "update p50 / p99, without",
          `${fmt(s.update.unchecked.p50)} / ${fmt(s.update.unchecked.p99)} ms`,
          "",
          "",
        ],
        [
          "admission",
          "update with / without, p50 (per round)",
          stat(s.updateRatioP50, ""),
          "<= 1.2",
          met(s.updateRatioP50?.median <= 1.2),
        ],
        ["admission", "update p50 added by the policy", `${fmt(s.update.extraP50Ms)} ms`, "", ""],
        ["admission", "update with / without, p99 (per round)", stat(s.updateRatioP99, ""), "", ""],
        ...["create", "update"].map((op) => [
          "admission",
          `per ${op} in the API server: policy plugin time, authorizer decisions (with / without)`,
          `${fmt(s.perWrite[op].checked.admissionPolicyMs)} / ${fmt(s.perWrite[op].unchecked.admissionPolicyMs)} ms, ${fmt(s.perWrite[op].checked.authorizerAllowed)} / ${fmt(s.perWrite[op].unchecked.authorizerAllowed)}`,
          "",
          "",
        ]),
      ];
    case "micro":
      return [
        ["micro", "CEL evaluations / s", fmt(s.celEvaluationsPerSecond), "", ""],
        ["micro", "Go template renders / s", fmt(s.templateRendersPerSecond), "", ""],
        ["micro", `compile ${result.compile.resources}-resource RGD`, `${fmt(result.compile.medianMs)} ms`, "", ""],
      ];
    default:
      return [];
  }
}

const met = (ok) => (ok ? "met" : "NOT met");

/** Quiet, idle and busy time-to-Ready of a new instance after kube-apiserver's /readyz: p50 / max, and the ratio to quiet. */
function apiServerRestartRows(a) {
  if (a === undefined) return [];
  const row = (label, st, quiet, target) => [
    "restart",
    `${label}: new instance Ready (p50 / max of ${st.n})`,
    `${fmt(st.p50)} / ${fmt(st.max)} ms${quiet === undefined ? "" : ` (${fmt(Math.round((st.p50 / quiet.p50) * 10) / 10)}× quiet)`}`,
    target,
    target === "" ? "" : met(st.max < 1000),
  ];
  return [
    [
      "restart",
      "API-server restart",
      `${fmt(a.downtimeMs)} ms down; busy: ${fmt(a.busyInstances)} instances in flight`,
      "",
      "",
    ],
    row("quiet (no restart)", a.quiet, undefined, ""),
    row("idle, after /readyz", a.idle, a.quiet, "< 1000 ms"),
    ...(a.busyQuiet === undefined ? [] : [row("quiet behind the busy ones (no restart)", a.busyQuiet, undefined, "")]),
    row("busy, after /readyz", a.busy, a.busyQuiet ?? a.quiet, "< 1000 ms"),
  ];
}

export function table(allRows) {
  const header = ["scenario", "figure", "median (min–max)", "target", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...allRows.map((r) => String(r[i]).length)));
  const line = (r) =>
    r
      .map((c, i) => String(c).padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...allRows.map(line)].join("\n");
}
