// `kro tree`: an instance the real controller reconciled, read by the CLI from outside — every
// node state at once, a nested instance expanded, -o json, the exit statuses of --wait, -w, and
// the same command as the kubectl plugin `kubectl kro tree`.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { exited, startCli } from "../support/cli-session.js";
import type { InstanceTree } from "../../src/inspect/index.js";

const letters = letterSuffix();
const cap = `${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const leafKind = `TreeLeaf${cap}`;
const rootKind = `TreeRoot${cap}`;

const leafSpec = `
  schema:
    apiVersion: v1alpha1
    kind: ${leafKind}
    spec:
      value: string | default="leaf"
  resources:
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-leaf" }
        data: { value: "\${schema.spec.value}" }
`;

// config is ready once it exists; deploy is paused (applied, never available) until spec.paused
// is false; svc waits on deploy; ing is excluded; leaf is a nested instance; portal is refused by
// the API server when spec.port is out of range (an apply error).
const rootSpec = `
  schema:
    apiVersion: v1alpha1
    kind: ${rootKind}
    spec:
      paused: boolean | default=true
      port: integer | default=80
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data: { greeting: hello }
    - id: deploy
      readyWhen:
        - \${deploy.status.?availableReplicas.orValue(0) > 0}
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: "\${config.metadata.name}" }
        spec:
          paused: \${schema.spec.paused}
          replicas: 1
          selector: { matchLabels: { app: "\${schema.metadata.name}" } }
          template:
            metadata: { labels: { app: "\${schema.metadata.name}" } }
            spec: { containers: [{ name: web, image: "nginx:1.27" }] }
    - id: svc
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${deploy.metadata.name}" }
        spec: { selector: { app: "\${schema.metadata.name}" }, ports: [{ port: 80 }] }
    - id: ing
      includeWhen:
        - \${schema.spec.port == 1}
      template:
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: { name: "\${schema.metadata.name}" }
        spec: { defaultBackend: { service: { name: "\${schema.metadata.name}", port: { number: 80 } } } }
    - id: leaf
      template:
        apiVersion: kro.run/v1alpha1
        kind: ${leafKind}
        metadata: { name: "\${schema.metadata.name}" }
        spec: { value: "\${config.data.greeting}" }
    - id: portal
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${schema.metadata.name}-portal" }
        spec: { ports: [{ port: "\${schema.spec.port}" }] }
`;

async function tree(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const session = startCli(["tree", ...args, "--kubeconfig", testCluster().kubeconfig]);
  const code = await exited(session.child);
  return { code, output: session.output() };
}

async function createRoot(ns: string, name: string, spec: string): Promise<void> {
  await kubectl(
    ["apply", "-n", ns, "-f", "-"],
    `apiVersion: kro.run/v1alpha1\nkind: ${rootKind}\nmetadata:\n  name: ${name}\nspec: ${spec}\n`,
  );
}

describe("kro tree", { timeout: 240_000 }, () => {
  let tc: TestController;
  let dir: string;
  before(async () => {
    tc = await startTestController();
    dir = await mkdtemp(path.join(tmpdir(), "kro-tree-"));
    await kubectl(["apply", "-f", "-"], `${rgdHeader(tc, `tree-leaf-${letters}`)}${leafSpec}`);
    await waitRgdActive(`tree-leaf-${letters}`);
    await kubectl(["apply", "-f", "-"], `${rgdHeader(tc, `tree-root-${letters}`)}${rootSpec}`);
    await waitRgdActive(`tree-root-${letters}`);
  });
  after(async () => {
    await kubectl([
      "delete",
      "rgd",
      `tree-root-${letters}`,
      `tree-leaf-${letters}`,
      "--ignore-not-found",
      "--wait=false",
    ]).catch(() => "");
    await tc.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("shows every state, the blocking expression or dependency, and a nested instance expanded; exit 3 on an error", async (t) => {
    const ns = await testNamespace(t, "tree-states");
    await createRoot(ns, "shop", "{ port: 70000 }");
    await eventually(
      async () => {
        const o = await kubectlJson<{ status?: { state?: string; conditions?: { type: string; message?: string }[] } }>(
          ["get", rootKind.toLowerCase(), "shop", "-n", ns],
        );
        assert.equal(o.status?.state, "ERROR", JSON.stringify(o.status));
        assert.match(
          o.status.conditions?.find((c) => c.type === "ResourcesReady")?.message ?? "",
          /portal: apply Service/,
        );
        const leaf = await kubectlJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
          "get",
          leafKind.toLowerCase(),
          "shop",
          "-n",
          ns,
        ]);
        assert.equal(leaf.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
      },
      { timeout: 60_000 },
    );

    const text = await tree([`${rootKind.toLowerCase()}/shop`, "-n", ns]);
    assert.equal(text.code, 3, text.output);
    assert.match(text.output, /^NAME +STATE +AGE +REASON$/m);
    assert.match(
      text.output,
      new RegExp(
        `^${rootKind}/shop \\(${ns}\\) +not ready \\(ERROR\\) +\\d+s +ResourcesNotReady: at least one resource reports an error: portal: `,
        "m",
      ),
    );
    assert.match(text.output, /^├── config: ConfigMap\/shop +ready +\d+s +applied$/m);
    assert.match(
      text.output,
      /^├── deploy: Deployment\/shop +waiting for readiness +\d+s +readyWhen is not true yet: deploy\.status\.\?availableReplicas\.orValue\(0\) > 0$/m,
    );
    assert.match(text.output, /^├── svc: Service +waiting on dependency +- +waiting on deploy$/m);
    assert.match(text.output, /^├── ing: Ingress +excluded +- +includeWhen is false: schema\.spec\.port == 1$/m);
    assert.match(text.output, new RegExp(`^├── leaf: ${leafKind}/shop +ready +\\d+s +applied; instance Ready$`, "m"));
    assert.match(
      text.output,
      /^│ {3}└── cm: ConfigMap\/shop-leaf +ready +\d+s +applied$/m,
      "the nested instance's own node",
    );
    assert.match(
      text.output,
      /^└── portal: Service +error +- +apply Service .*422 Invalid.*must be between 1 and 65535/m,
    );

    const json = await tree([rootKind, "shop", "-n", ns, "-o", "json"]);
    assert.equal(json.code, 3, json.output);
    const parsed = JSON.parse(json.output) as InstanceTree;
    assert.deepEqual(
      parsed.nodes.map((n) => [n.id, n.state]),
      [
        ["config", "Ready"],
        ["deploy", "WaitingForReadiness"],
        ["svc", "WaitingOnDependency"],
        ["ing", "Excluded"],
        ["leaf", "Ready"],
        ["portal", "Error"],
      ],
    );
    assert.deepEqual(parsed.nodes.find((n) => n.id === "svc")?.blockedBy, { dependencies: ["deploy"] });
    const leaf = parsed.nodes.find((n) => n.id === "leaf")?.objects[0]?.instance;
    assert.equal(leaf?.ready, true);
    assert.deepEqual(
      leaf.nodes.map((n) => [n.id, n.state, n.objects[0]?.name]),
      [["cm", "Ready", "shop-leaf"]],
    );
  });

  it("--wait exits 2 when the timeout passes, 0 once the instance becomes Ready; -w prints each change", async (t) => {
    const ns = await testNamespace(t, "tree-wait");
    await createRoot(ns, "cart", "{}");
    await eventually(
      async () => {
        const o = await kubectlJson<{ status?: { state?: string } }>(["get", rootKind.toLowerCase(), "cart", "-n", ns]);
        assert.equal(o.status?.state, "IN_PROGRESS");
      },
      { timeout: 60_000 },
    );
    // The instance is paused: only the CLI's own timeout can end this wait (exit code 2 says it did).
    const timedOut = await tree([`${rootKind}/cart`, "-n", ns, "--wait", "--timeout", "2s", "--interval", "200ms"]);
    assert.equal(timedOut.code, 2, timedOut.output);
    assert.match(
      timedOut.output,
      new RegExp(`kro tree: ${rootKind}/cart is not Ready after 2s: ResourcesInProgress: `),
    );

    const watching = startCli([
      "tree",
      `${rootKind}/cart`,
      "-n",
      ns,
      "-w",
      "--wait",
      "--timeout",
      "90s",
      "--interval",
      "300ms",
      "--kubeconfig",
      testCluster().kubeconfig,
    ]);
    try {
      await watching.waitFor(/├── svc: Service +waiting on dependency/, 20_000);
      await kubectl([
        "patch",
        rootKind.toLowerCase(),
        "cart",
        "-n",
        ns,
        "--type=merge",
        "-p",
        '{"spec":{"paused":false}}',
      ]);
      const code = await exited(watching.child);
      assert.equal(code, 0, watching.output());
      const output = watching.output();
      assert.match(output, /^--- \d{4}-\d\d-\d\dT/m, "a later picture, in a pipe, is a new block with a timestamp");
      assert.match(
        output.slice(output.lastIndexOf("NAME")),
        /^├── svc: Service\/cart +ready/m,
        "the last picture is the Ready one",
      );
    } finally {
      watching.kill();
    }
  });

  it("-w in a pipe prints a new block only when the tree changes, not when an age ticks", async (t) => {
    const ns = await testNamespace(t, "tree-quiet");
    await createRoot(ns, "still", "{}");
    await eventually(
      async () => {
        const o = await kubectlJson<{ status?: { state?: string; conditions?: unknown } }>([
          "get",
          rootKind.toLowerCase(),
          "still",
          "-n",
          ns,
        ]);
        assert.equal(o.status?.state, "IN_PROGRESS");
        // Settled: the nested leaf's Ready has reached the root too (until then its reason changes).
        assert.doesNotMatch(JSON.stringify(o.status.conditions ?? []), /resource \\"leaf\\"/);
      },
      { timeout: 60_000 },
    );
    // Paused: nothing changes while we watch, but the ages shown go up every second.
    const watching = startCli([
      "tree",
      `${rootKind}/still`,
      "-n",
      ns,
      "-w",
      "--interval",
      "200ms",
      "--kubeconfig",
      testCluster().kubeconfig,
    ]);
    try {
      await watching.waitFor(/├── svc: Service +waiting on dependency/, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const output = watching.output();
      assert.equal(output.match(/^NAME /gm)?.length, 1, output);
      assert.doesNotMatch(output, /^--- /m, output);
    } finally {
      watching.kill();
    }
  });

  it("names what it cannot find, with exit 1", async (t) => {
    const ns = await testNamespace(t, "tree-missing");
    const missing = await tree([`${rootKind}/nope`, "-n", ns]);
    assert.equal(missing.code, 1);
    assert.match(
      missing.output,
      new RegExp(`kro tree: error: ${rootKind} ${ns}/nope not found on https://127\\.0\\.0\\.1:\\d+`),
    );
    const unknown = await tree(["nosuchkind/x", "-n", ns]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.output, /no ResourceGraphDefinition serves a kind "nosuchkind"/);
  });

  it("runs as the kubectl plugin kubectl-kro (package.json bin)", async (t) => {
    const ns = await testNamespace(t, "tree-plugin");
    await kubectl(
      ["apply", "-n", ns, "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${leafKind}\nmetadata:\n  name: solo\n`,
    );
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const pkg = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { bin: Record<string, string> };
    const entry = path.join(root, pkg.bin["kubectl-kro"] ?? "missing");
    await chmod(entry, 0o755); // npm does this on install
    const bin = path.join(dir, "bin");
    await mkdir(bin);
    await symlink(entry, path.join(bin, "kubectl-kro"));
    await eventually(
      async () => {
        const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
          execFile(
            "kubectl",
            ["kro", "tree", `${leafKind}/solo`, "-n", ns, "--wait", "--timeout", "30s"],
            {
              env: { ...process.env, KUBECONFIG: testCluster().kubeconfig, PATH: `${bin}:${process.env.PATH ?? ""}` },
            },
            (error, stdout) => {
              resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout });
            },
          );
        });
        assert.equal(out.code, 0, out.stdout);
        assert.match(out.stdout, new RegExp(`^${leafKind}/solo \\(${ns}\\) +ready`, "m"));
        assert.match(out.stdout, /^└── cm: ConfigMap\/solo-leaf +ready/m);
      },
      { timeout: 60_000 },
    );
  });
});
