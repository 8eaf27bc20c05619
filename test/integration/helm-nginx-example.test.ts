/**
 * examples/helm-nginx and the README's "Coming from Helm": the committed import output is what
 * `kro import helm` produces today, and the README's commands, run in order on the local cluster
 * (with a namespace, kind and RGD label of this test's own, so parallel tests cannot collide),
 * migrate a running release in place.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { runKro } from "../support/cli-session.js";
import { eventually } from "../support/eventually.js";
import { helm } from "../support/helm.js";
import { assertNothingRecreated, releaseCensus } from "../support/release-census.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const example = path.join(repo, "examples/helm-nginx");
const REGENERATE = [
  "import",
  "helm",
  "examples/helm-nginx/chart",
  "--release-name",
  "my-nginx",
  "-o",
  "examples/helm-nginx/imported",
];

const kro = (args: readonly string[]) => runKro(args, { cwd: repo });

/** The shell block of README.md's "Coming from Helm" section, as lines of commands. */
async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(path.join(repo, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Coming from Helm"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? assert.fail("no sh block under Coming from Helm");
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

describe("examples/helm-nginx and README's Coming from Helm", { timeout: 300_000 }, () => {
  let tc: TestController;
  const suffix = letterSuffix();
  const namespace = `shop-${suffix}`;
  const kind = `Shop${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
  const group = `${suffix}.example.kro-ts.test`;
  before(async () => {
    tc = await startTestController();
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "rgd", "-l", `${tc.label.key}=${tc.label.value}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", `${kind.toLowerCase()}s.${group}`, "--wait=false", "--ignore-not-found"]);
  });

  it("examples/helm-nginx/imported is what kro import helm writes today", async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), "kro-helm-nginx-"));
    try {
      await kro([...REGENERATE.slice(0, -1), scratch]);
      const committed = path.join(example, "imported");
      const names = (await readdir(committed)).sort();
      assert.deepEqual((await readdir(scratch)).sort(), names);
      for (const name of names) {
        assert.equal(
          await readFile(path.join(scratch, name), "utf8"),
          await readFile(path.join(committed, name), "utf8"),
          `examples/helm-nginx/imported/${name} is stale: run node dist/src/cli/main.js ${REGENERATE.join(" ")}`,
        );
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it("the README's commands migrate a running release in place", async () => {
    const commands = await readmeCommands();
    const expected = [
      "helm install my-nginx examples/helm-nginx/chart -n shop --create-namespace",
      "kro import helm --release my-nginx -n shop -o my-nginx-kro",
      "kro import helm --release my-nginx -n shop --apply",
      `kubectl patch nginxapps.helm.kro.run my-nginx -n shop --type=merge -p '{"spec":{"replicaCount":3}}'`,
      "kro import helm --release my-nginx -n shop --apply --remove-release-record",
      "helm list -n shop",
    ];
    for (const command of expected)
      assert.ok(
        commands.includes(command),
        `README's Coming from Helm runs: ${command}\n(it has: ${commands.join(" | ")})`,
      );

    const { kubeconfig } = testCluster();
    const mine = [
      "--kind",
      kind,
      "--group",
      group,
      "--rgd-label",
      `${tc.label.key}=${tc.label.value}`,
      "--kubeconfig",
      kubeconfig,
    ];
    await helm([
      "install",
      "my-nginx",
      path.join(example, "chart"),
      "-n",
      namespace,
      "--create-namespace",
      "--kubeconfig",
      kubeconfig,
    ]);
    const before = await eventually(
      async () => {
        const census = await releaseCensus(namespace, "my-nginx");
        assert.equal([...census.workload.keys()].filter((k) => k.startsWith("Pod/")).length, 2);
        return census;
      },
      { timeout: 120_000 },
    );

    const scratch = await mkdtemp(path.join(tmpdir(), "kro-my-nginx-"));
    try {
      const look = await kro(["import", "helm", "--release", "my-nginx", "-n", namespace, "-o", scratch, ...mine]);
      assert.match(look.stderr, /Deployment .*\/my-nginx \(uid [^)]+\): adopt in place, unchanged/);
      assert.deepEqual((await readdir(scratch)).sort(), ["crd.yaml", "instance.yaml", "rgd.yaml"]);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    await kro(["import", "helm", "--release", "my-nginx", "-n", namespace, "--apply", ...mine]);
    assertNothingRecreated(before, await releaseCensus(namespace, "my-nginx"), "README migration");

    await kubectl([
      "patch",
      `${kind.toLowerCase()}s.${group}`,
      "my-nginx",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"spec":{"replicaCount":3}}',
    ]);
    await eventually(
      async () => {
        const d = await kubectlJson<{ spec: { replicas: number } }>(["get", "deployment", "my-nginx", "-n", namespace]);
        assert.equal(d.spec.replicas, 3);
      },
      { timeout: 60_000 },
    );

    await kro([
      "import",
      "helm",
      "--release",
      "my-nginx",
      "-n",
      namespace,
      "--apply",
      "--remove-release-record",
      ...mine,
    ]);
    assert.doesNotMatch(await helm(["list", "-n", namespace, "--kubeconfig", kubeconfig]), /my-nginx/);
    assert.deepEqual(
      [...(await releaseCensus(namespace, "my-nginx")).objects].sort(),
      [...before.objects].sort(),
      "the same objects after the record is gone",
    );
  });
});
