/**
 * Hostile charts cannot take the controller down: one instance per attack — a list of 10^8
 * elements (`until`), 2,000 bcrypt hashes, unbounded `include` recursion, RSA keys generated in
 * a range, a string doubled towards gigabytes and then parsed by `fromYaml` — next to 20 benign
 * instances of the same chart. Each hostile instance ends in ERROR with the limit it hit named,
 * the benign ones converge (their time against a quiet run's is printed, not asserted: it depends
 * on the machine's load), /healthz answers every probe, and the controller is the same process (same PID) with bounded RSS.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";

interface Instance {
  metadata: { name: string };
  status?: { state?: string; conditions?: { type: string; status: string; message?: string }[] };
}

const suffix = letterSuffix();
const group = `chart${suffix.toLowerCase()}.kro.run`;
const kind = `Chart${suffix}App`;
const plural = `${kind.toLowerCase()}s`;
const namespace = `hostile-chart-${suffix.toLowerCase()}`;
const rgdName = `hostile-chart-${suffix.toLowerCase()}`;
const selector = `kro-ts.test/controller=hostile-chart-${suffix.toLowerCase()}`;
const COUNT = 20;

/** Every attack is switched on by the instance's values; a benign instance renders one ConfigMap. */
const TEMPLATE = `{{- define "c.deep" -}}{{ include "c.deep" . }}{{- end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  size: {{ len (until (int (.Values.count | default 3))) | quote }}
  {{- range until (int (.Values.hashes | default 0)) }}
  h{{ . }}: {{ bcrypt "x" | quote }}
  {{- end }}
  {{- range until (int (.Values.keys | default 0)) }}
  k{{ . }}: {{ genPrivateKey "rsa" | len | quote }}
  {{- end }}
  {{- if .Values.recurse }}
  deep: {{ include "c.deep" . | quote }}
  {{- end }}
  {{- if .Values.blob }}
  {{- $s := "a: aaaaaaaaaaaaaaaa" }}{{ range until 30 }}{{ $s = cat $s $s }}{{ end }}
  blob: {{ fromYaml $s | toYaml | len | quote }}
  {{- end }}
`;

function indent(text: string, spaces: number): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : " ".repeat(spaces) + l))
    .join("\n");
}

const ATTACKS: Record<string, { values: string; limit: RegExp }> = {
  until: {
    values: "{ count: 100000000 }",
    limit: /error calling until: a list of 100000000 elements exceeds the render's work budget/,
  },
  bcrypt: {
    values: "{ hashes: 2000 }",
    limit: /error calling bcrypt: a bcrypt hash exceeds the render's work budget|time limit/,
  },
  include: { values: "{ recurse: true }", limit: /nests too deeply|nested reference/ },
  keys: {
    values: "{ keys: 100 }",
    limit:
      /error calling genPrivateKey: an RSA key \(a fresh 2048-bit prime\) exceeds the render's work budget|time limit/,
  },
  blob: {
    values: "{ blob: true }",
    limit: /error calling cat: the \d+ characters cat built exceeds the render's work budget/,
  },
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const instanceYaml = (name: string, spec: string): string =>
  `apiVersion: ${group}/v1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: ${spec}\n`;

async function timeToReady(prefix: string, extra: readonly string[] = []): Promise<number> {
  const names = Array.from({ length: COUNT }, (_, i) => `${prefix}-${i}`);
  const started = performance.now();
  await kubectl(["apply", "-f", "-"], [...extra, ...names.map((n) => instanceYaml(n, "{}"))].join("---\n"));
  await eventually(
    async () => {
      const list = await kubectlJson<{ items: Instance[] }>(["get", plural, "-n", namespace]);
      const active = list.items.filter((i) => names.includes(i.metadata.name) && i.status?.state === "ACTIVE").length;
      assert.equal(active, COUNT);
    },
    { timeout: 180_000, interval: 100 },
  );
  return performance.now() - started;
}

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // the process is gone: the PID assertion reports it
  }
}

describe("hostile charts do not stall, crash or blind the controller", { timeout: 600_000 }, () => {
  let controller: ControllerProcess;
  let healthPort = 0;
  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.${group} }
spec:
  group: ${group}
  names: { kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`,
    );
    healthPort = await freePort();
    controller = await startControllerProcess(testCluster().kubeconfig, [
      "--rgd-selector",
      selector,
      "--health-probe-bind-address",
      `127.0.0.1:${healthPort}`,
      "--log-level",
      "info",
    ]);
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { kro-ts.test/controller: hostile-chart-${suffix.toLowerCase()} }
spec:
  resourceKind: { group: ${group}, version: v1, kind: ${kind} }
  helm:
    templates:
      c/templates/cm.yaml: |
${indent(TEMPLATE, 8)}
    charts:
      - templatePrefix: c/
        valuesPath: []
        metadata: { name: c, version: 0.1.0 }
    kubeVersion: v1.33.0
    apiVersions: [v1]
  childResources:
    - id: cm
      apiVersion: v1
      kind: ConfigMap
      manifests: c/templates/cm.yaml
`,
    );
    await eventually(
      async () => {
        const rgd = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName]);
        assert.equal(rgd.status?.state, "Active", JSON.stringify(rgd.status));
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    await controller.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", `${plural}.${group}`, "--wait=false", "--ignore-not-found"]);
  });

  it("each attack ends in ERROR naming its limit, while the others converge and the process answers", async () => {
    const pid = controller.pid;
    const quiet = await timeToReady("quiet");

    const probes: number[] = [];
    const failures: string[] = [];
    let worstRss = 0;
    const probing = { on: true };
    const prober = (async () => {
      while (probing.on) {
        const sent = performance.now();
        try {
          // A loop blocked by an attack would not answer for hours (they are unbounded); the
          // timeout only ends the wait for a probe that got no answer at all.
          const res = await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(10_000) });
          if (res.status !== 200) failures.push(`status ${res.status}`);
        } catch (e) {
          failures.push(e instanceof Error ? e.message : String(e));
        }
        probes.push(performance.now() - sent);
        worstRss = Math.max(worstRss, rssMb(pid));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const hostile = Object.entries(ATTACKS).map(([name, a]) => instanceYaml(`hostile-${name}`, a.values));
    let busy = 0;
    try {
      busy = await timeToReady("busy", hostile);
    } finally {
      setTimeout(() => {
        probing.on = false;
      }, 150_000).unref();
    }
    for (const [name, attack] of Object.entries(ATTACKS)) {
      await eventually(
        async () => {
          const h = await kubectlJson<Instance>(["get", plural, `hostile-${name}`, "-n", namespace]);
          assert.equal(h.status?.state, "ERROR", `${name}: ${JSON.stringify(h.status)}`);
          const ready = h.status.conditions?.find((c) => c.type === "Ready");
          assert.equal(ready?.status, "False", `${name}: ${JSON.stringify(h.status)}`);
          assert.match(ready.message ?? "", attack.limit, name);
        },
        { timeout: 120_000 },
      );
    }
    probing.on = false;
    await prober;

    const ratio = busy / Math.max(quiet, 1000);
    const worstProbe = Math.max(...probes);
    console.log(
      `charts: quiet ${Math.round(quiet)} ms, with ${hostile.length} hostile tenants ${Math.round(busy)} ms (ratio ${ratio.toFixed(2)}); ${probes.length} probes, worst ${Math.round(worstProbe)} ms; controller RSS at most ${Math.round(worstRss)} MiB`,
    );
    assert.deepEqual(failures, [], "every /healthz probe answered 200");
    // Worker heaps are capped at 256 MiB each; the main thread holds caches of 60 small instances.
    assert.ok(worstRss < 1200, `controller RSS reached ${Math.round(worstRss)} MiB`);
    assert.ok(controller.alive(), controller.output().slice(-2000));
    assert.equal(controller.pid, pid, "the same controller process throughout");
  });
});
