// Admission: what the per-RGD author policy (docs/design/authorization.md)
// costs a real, non-admin tenant. Two RGDs of the fan-out shape (6 children, 5 kinds), served
// side by side: "checked" with the author policy (the default), "unchecked" with
// `kro.run/author-check: Disabled` (the controller installs no policy for it — the supported
// switch, nothing deleted behind its back). A ServiceAccount (TokenRequest token) holding exactly
// a tenant's RBAC creates N instances of each, one request in flight, A and B alternating (ABBA
// order, so drift in machine load falls on both), then merge-patches the spec of every one the
// same way. Reported per operation: client-side latency p50/p99 of each phase and the ratio
// checked/unchecked from the same run; from the API server's /metrics, the policy plugin's time
// and the authorizer decisions per write, counted over a tenant-only window (controller stopped).
import { scrapeMetricsText, sumSeries } from "../lib/apiserver-metrics.mjs";
import { log, waitUntil } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { ensureNamespaces, installRgd } from "../lib/workload.mjs";
import { fanoutRgd } from "../fixtures/fanout-rgd.mjs";
import { createTenant, TENANT_USER } from "../fixtures/tenant.mjs";

const GROUP = "bench.kro.run";
const VERSION = "v1alpha1";
const NAMESPACES = ["admit-0", "admit-1", "admit-2", "admit-3"];
const PROBE_NAMESPACE = "admit-probe";
const ADMIN_USER = "kro-admin"; // the local cluster's token user and its groups (src/localcluster/cluster.ts)
const ADMIN_GROUPS = "system:masters,system:authenticated";
/** Warm-up writes of each phase per --warmup (CEL programs, caches, connections). */
const WARMUP = 10;
const PHASES = {
  checked: { kind: "BenchAdmitChecked", plural: "benchadmitcheckeds", rgdName: "bench-admit-checked", annotations: {} },
  unchecked: {
    kind: "BenchAdmitUnchecked",
    plural: "benchadmituncheckeds",
    rgdName: "bench-admit-unchecked",
    // Disabling the check is a delegation: the writer records themselves (the kro-delegation policy).
    annotations: {
      "kro.run/author-check": "Disabled",
      "kro.run/delegated-by": ADMIN_USER,
      "kro.run/delegated-groups": ADMIN_GROUPS,
    },
  },
};

/**
 * The fan-out RGD with every child placed where the instance's spec says (`spec.target`): the case
 * the author policy checks (where the RGD fixes the scope, the RGD is the grant and nothing is
 * checked). Both phases use the same shape, so they differ only in the policy.
 */
function rgdOf(phase) {
  const rgd = fanoutRgd();
  const placed = (template) => ({
    ...template,
    metadata: { ...template.metadata, namespace: "${schema.spec.target}" },
  });
  return {
    ...rgd,
    metadata: { name: phase.rgdName, annotations: phase.annotations },
    spec: {
      ...rgd.spec,
      schema: { ...rgd.spec.schema, kind: phase.kind, spec: { ...rgd.spec.schema.spec, target: "string" } },
      resources: rgd.spec.resources.map((r) => ({ ...r, template: placed(r.template) })),
    },
  };
}
const instanceOf = (phase, name, namespace) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: phase.kind,
  metadata: { name, namespace },
  spec: { message: "hello", target: namespace },
});
const refOf = (o) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  namespace: o.metadata.namespace,
});

async function timed(fn) {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Sequential requests, the two phases alternating in ABBA order; returns the latencies of each phase. */
async function interleaved(count, op) {
  const samples = { checked: [], unchecked: [] };
  for (let i = 0; i < count; i++) {
    const order = i % 2 === 0 ? ["checked", "unchecked"] : ["unchecked", "checked"];
    for (const phase of order) samples[phase].push(await timed(() => op(phase, i)));
  }
  return samples;
}

/** The policy in force, judged by what it does: the tenant's checked instance is refused where it may not create children; the unchecked one is admitted. */
async function probePolicy(tenant) {
  const refused = await tenant.create(instanceOf(PHASES.checked, "probe", PROBE_NAMESPACE)).then(
    () => undefined,
    (e) => e,
  );
  if (refused?.status !== 403 || !/may not create/.test(String(refused.message))) {
    throw new Error(
      `admission: the author policy did not refuse the tenant's instance in ${PROBE_NAMESPACE} (got ${refused === undefined ? "admitted" : String(refused.message)})`,
    );
  }
  await tenant.create(instanceOf(PHASES.unchecked, "probe", PROBE_NAMESPACE));
  return String(refused.message);
}

/**
 * What `count` tenant writes cost inside the API server: the ValidatingAdmissionPolicy plugin's
 * time (every policy matching the write — here only the author policy, if any) and the RBAC
 * authorizer's decisions (the request's own, plus one per `authorizer…check()` the policy makes).
 */
function admissionFigures(before, after, operation, count) {
  const delta = (name, ...match) => sumSeries(after, name, ...match) - sumSeries(before, name, ...match);
  const plugin = ['name="ValidatingAdmissionPolicy"', `operation="${operation}"`];
  return {
    admissionPolicyMs: round(
      (delta("apiserver_admission_controller_admission_duration_seconds_sum", ...plugin) * 1000) / count,
      3,
    ),
    authorizerAllowed: round(delta("apiserver_authorization_decisions_total", 'decision="allowed"') / count, 2),
    authorizerDenied: round(delta("apiserver_authorization_decisions_total", 'decision="denied"') / count, 2),
  };
}

export async function runAdmission(bench) {
  const { args, harness, cluster } = bench;
  const instances = args.instances ?? 100;
  const rounds = args.repeat;
  const timeoutMs = args.timeout * 1000;
  log(
    `admission: ${rounds} round(s) of ${instances} creates + ${instances} spec patches per phase as ${TENANT_USER}, checked and unchecked alternating`,
  );
  await ensureNamespaces(harness, [...NAMESPACES, PROBE_NAMESPACE]);
  // A delegation written before the controller's kro-delegation policy is in force is not
  // applied (docs/design/authorization.md): wait for it, and for the API server to load it.
  await waitUntil(
    "the kro-delegation policy",
    async () =>
      (await harness.list("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy")).items.some(
        (p) => p.metadata.name === "kro-delegation",
      ) || undefined,
    { timeoutMs, intervalMs: 100 },
  );
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  for (const phase of Object.values(PHASES)) await installRgd(harness, rgdOf(phase), timeoutMs);
  const policies = await harness.list("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy");
  const policyNames = (rgdName) =>
    policies.items.map((p) => p.metadata.name).filter((n) => n.startsWith(`kro-author.${rgdName}.`));
  const checks = policies.items
    .filter((p) => policyNames(PHASES.checked.rgdName).includes(p.metadata.name))
    .reduce((n, p) => n + (p.spec.validations?.length ?? 0), 0);
  if (policyNames(PHASES.checked.rgdName).length === 0 || policyNames(PHASES.unchecked.rgdName).length > 0) {
    throw new Error(
      `admission: expected a policy for ${PHASES.checked.rgdName} only, found ${policies.items.map((p) => p.metadata.name).join(", ")}`,
    );
  }
  const token = await createTenant(harness, {
    group: GROUP,
    plurals: Object.values(PHASES).map((p) => p.plural),
    namespaces: NAMESPACES,
    probeNamespace: PROBE_NAMESPACE,
    kubeconfig: cluster.kubeconfigPath,
  });
  const { createKubeClient } = await import(`${bench.root}/dist/src/kube/index.js`);
  const tenant = await createKubeClient({
    connection: harness.connectionFor(token, NAMESPACES[0], "bench tenant"),
    qps: 0,
  });
  try {
    // RBAC reaches the authorizer through its informers: wait until the tenant is allowed.
    await waitUntil(
      "the tenant's RBAC to be in force",
      async () => {
        try {
          await tenant.list(`${GROUP}/${VERSION}`, PHASES.checked.kind, { namespace: NAMESPACES[0] });
          return true;
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const refusal = await probePolicy(tenant);
    log(`admission: policy of ${checks} checks in force; the tenant's probe was refused: ${refusal.slice(0, 160)}`);

    const namespaceOf = (i) => NAMESPACES[i % NAMESPACES.length];
    // Names differ by phase: the two kinds' instances would otherwise render the same child names and fight over them.
    const nameOf = (tag, phase, i) => `${tag}-${phase}-${i}`;
    const create = (tag) => (phase, i) =>
      tenant.create(instanceOf(PHASES[phase], nameOf(tag, phase, i), namespaceOf(i)));
    const patch = (tag) => (phase, i) =>
      tenant.patch(refOf(instanceOf(PHASES[phase], nameOf(tag, phase, i), namespaceOf(i))), {
        spec: { message: `changed-${i}` },
      });
    const warmups = args.warmup * Math.min(WARMUP, instances);
    log(`admission: warm-up, ${warmups} of each`);
    await interleaved(warmups, create("warm"));
    await interleaved(warmups, patch("warm"));

    const repetitions = [];
    for (let r = 0; r < rounds; r++) {
      const tag = `r${r}`;
      const created = await interleaved(instances, create(tag));
      const updated = await interleaved(instances, patch(tag));
      const rep = { create: latencies(created), update: latencies(updated) };
      log(
        `admission ${tag}: create p50 ${rep.create.checked.p50} / ${rep.create.unchecked.p50} ms (×${rep.create.ratioP50}), update p50 ${rep.update.checked.p50} / ${rep.update.unchecked.p50} ms (×${rep.update.ratioP50})`,
      );
      repetitions.push({ ...rep, samples: { created, updated } });
    }

    // What one tenant write costs inside the API server, counted with the controller stopped (its
    // own requests are authorized too, and its policy evaluations are skipped by a matchCondition).
    await bench.controller?.stop();
    const counted = Math.min(instances, 20);
    const costs = { create: {}, update: {} };
    for (const phase of Object.keys(PHASES)) {
      let before = await scrapeMetricsText(cluster);
      for (let i = 0; i < counted; i++) await create("count")(phase, i);
      let after = await scrapeMetricsText(cluster);
      costs.create[phase] = admissionFigures(before, after, "CREATE", counted);
      before = after;
      for (let i = 0; i < counted; i++) await patch("count")(phase, i);
      after = await scrapeMetricsText(cluster);
      costs.update[phase] = admissionFigures(before, after, "UPDATE", counted);
    }
    log(`admission: inside the API server per write: ${JSON.stringify(costs)}`);

    const all = (op) =>
      latencies({
        checked: repetitions.flatMap((r) => r.samples[op].checked),
        unchecked: repetitions.flatMap((r) => r.samples[op].unchecked),
      });
    const ratios = (op, key) => summarize(repetitions.map((r) => r[op][key]));
    return {
      scenario: "admission",
      instances,
      rounds,
      checks,
      tenant: TENANT_USER,
      probeRefusal: refusal,
      summary: {
        create: all("created"),
        update: all("updated"),
        createRatioP50: ratios("create", "ratioP50"),
        createRatioP99: ratios("create", "ratioP99"),
        updateRatioP50: ratios("update", "ratioP50"),
        updateRatioP99: ratios("update", "ratioP99"),
        perWrite: costs,
        countedWrites: counted,
      },
      repetitions,
    };
  } finally {
    tenant.close();
  }
}

function latencies({ checked, unchecked }) {
  const a = summarize(checked);
  const b = summarize(unchecked);
  return {
    checked: a,
    unchecked: b,
    ratioP50: round(a.p50 / b.p50),
    ratioP99: round(a.p99 / b.p99),
    extraP50Ms: round(a.p50 - b.p50),
  };
}
