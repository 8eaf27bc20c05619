// The front door, as a newcomer meets it. Both commands start their own local cluster, so they
// live in one file: node:test runs them one after the other and the suite never carries more
// than one extra control plane at a time.
//  - `npm start` (minus the build, which `npm test` has just done): a full local cluster, the
//    controller in-process, both bundled examples converging with live progress as plain lines
//    (no terminal here), the ready line, a kubeconfig that works with kubectl, and on SIGINT
//    nothing left behind — no process started for it, no temp dir.
//  - `kro dev` on a user's own files: converge, an edit that breaks the RGD is reported at
//    file:line:column without exiting, an edit that fixes it (and changes the instance) is
//    re-applied and converges again; with --clusters 3, the multi-cluster example converges with
//    its regional copies in two member clusters, and SIGINT removes all three clusters.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../../src/deploy/index.js";
import { eventually } from "../support/eventually.js";
import { exited, kubectlWith, processesMentioning, startCli } from "../support/cli-session.js";

interface Instance {
  status?: {
    state?: string;
    url?: string;
    availableReplicas?: number;
    conditions?: { type: string; status: string }[];
  };
}

const readyOf = (o: Instance): string | undefined => o.status?.conditions?.find((c) => c.type === "Ready")?.status;

describe("npm start (kro demo)", { timeout: 240_000 }, () => {
  it("converges both examples live, prints a working kubeconfig, and tears everything down on SIGINT", async () => {
    // npm start = `npm run build && node dist/src/cli/main.js demo`; the build already ran.
    const session = startCli(["demo"]);
    try {
      await session.waitFor(/^kro-ts: all examples Ready$/m, 180_000);
      const output = session.output();
      // Live progress, one line per change, with what each resource waits on.
      assert.match(output, /^\[\d\d:\d\d\] webapp\/demo deploy: applied, waiting for readiness/m);
      assert.match(output, /^\[\d\d:\d\d\] webapp\/demo svc: waiting on deploy$/m);
      assert.match(output, /^\[\d\d:\d\d\] webapp\/demo: ACTIVE, Ready$/m);
      assert.match(output, /^\[\d\d:\d\d\] nginxapp\/my-nginx deployment: ready$/m);
      assert.match(output, /^\[\d\d:\d\d\] nginxapp\/my-nginx: ACTIVE, Ready$/m);
      assert.ok(
        output.indexOf("webapp/demo svc: waiting on deploy") < output.indexOf("kro-ts: all examples Ready"),
        "progress comes before the ready line",
      );

      const kubeconfig =
        /^Ready\. kubeconfig: (\S+)$/m.exec(output)?.[1] ?? assert.fail(`no kubeconfig line:\n${output}`);
      const stateDir = /^Component logs: (\S+)$/m.exec(output)?.[1] ?? assert.fail(`no logs line:\n${output}`);
      assert.match(output, new RegExp(`^  export KUBECONFIG=${kubeconfig}$`, "m"));
      assert.ok(
        processesMentioning(stateDir).length >= 5,
        "etcd, apiserver, controller-manager, scheduler, kwok (+ reaper) run from the state dir",
      );

      // The printed kubectl lines work with the printed kubeconfig.
      const webapp = JSON.parse(
        await kubectlWith(kubeconfig, ["get", "webapp", "demo", "-n", "default", "-o", "json"]),
      ) as Instance;
      assert.equal(webapp.status?.state, "ACTIVE");
      assert.equal(readyOf(webapp), "True");
      assert.equal(webapp.status.url, "http://demo.default.svc:80");
      assert.equal(webapp.status.availableReplicas, 2);
      const nginx = JSON.parse(
        await kubectlWith(kubeconfig, ["get", "nginxapp", "my-nginx", "-n", "default", "-o", "json"]),
      ) as Instance;
      assert.equal(readyOf(nginx), "True", JSON.stringify(nginx.status));
      const children = await kubectlWith(kubeconfig, [
        "get",
        "deployments,services,ingresses",
        "-A",
        "-l",
        "app.kubernetes.io/managed-by=kro",
        "-o",
        "name",
      ]);
      for (const name of ["deployment.apps/demo", "service/demo", "ingress.networking.k8s.io/demo"])
        assert.match(children, new RegExp(`^${name}$`, "m"));
      assert.match(
        await kubectlWith(kubeconfig, [
          "get",
          "deployment",
          "my-nginx",
          "-n",
          "default",
          "-o",
          "jsonpath={.status.availableReplicas}",
        ]),
        /^2$/,
      );

      // The graphs are written next to the kubeconfig.
      const svgs = readdirSync(stateDir)
        .filter((f) => f.endsWith(".svg"))
        .sort();
      assert.deepEqual(svgs, ["nginxapp-graph.svg", "webapp.svg"]);
      // The picture follows the live state (redrawn within a second of the controller's last evaluation).
      await eventually(
        () => {
          const svg = readFileSync(`${stateDir}/webapp.svg`, "utf8");
          assert.match(svg, /<svg[\s\S]*deploy[\s\S]*svc[\s\S]*ing/);
          assert.match(svg, /fill="#c8e6c9"/, "ready nodes are green");
          assert.doesNotMatch(svg, /fill="#(fff3c4|ffcdd2|bbdefb)"/, "nothing waiting, failed or pending");
        },
        { timeout: 10_000 },
      );
      assert.match(output, new RegExp(`^Graph: ${stateDir}/webapp\\.svg$`, "m"));

      session.child.kill("SIGINT");
      assert.equal(await exited(session.child), 0, session.output());
      assert.match(session.output(), /stopped; all processes and temporary files removed/);
      assert.equal(existsSync(stateDir), false, "state dir removed");
      await eventually(
        () => {
          assert.deepEqual(processesMentioning(stateDir), [], "no process of this cluster left (components, reaper)");
        },
        { timeout: 10_000 },
      );
    } finally {
      session.kill();
    }
  });
});

// A user's RGD of ConfigMaps, so `kro dev --minimal` (etcd and kube-apiserver only) is enough.
const SETTINGS_RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: settings
spec:
  schema:
    apiVersion: v1alpha1
    kind: Settings
    spec:
      greeting: string | default="hello"
      copies: integer | default=1
      mirror: boolean | default=false
    status:
      greeting: \${config.data.greeting}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: \${schema.metadata.name}
        data:
          greeting: \${schema.spec.greeting}
          copies: \${string(schema.spec.copies)}
    - id: mirror
      includeWhen:
        - \${schema.spec.mirror}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: \${config.metadata.name}-mirror
        data:
          greeting: \${config.data.greeting}
`;

/** A failure of a `kro dev` session carries the end of its controller's log (the state dir goes with the session). */
function withControllerLog(error: unknown, stateDir: string | undefined): unknown {
  const file = stateDir === undefined ? undefined : path.join(stateDir, "controller.log");
  if (file === undefined || !existsSync(file) || !(error instanceof Error)) return error;
  error.message += `\n--- end of ${file} ---\n${readFileSync(file, "utf8").split("\n").slice(-150).join("\n")}`;
  return error;
}

const settings = (greeting: string, mirror: boolean): string => `apiVersion: kro.run/v1alpha1
kind: Settings
metadata:
  name: mine
spec:
  greeting: ${greeting}
  mirror: ${String(mirror)}
`;

const count = (text: string, pattern: RegExp): number => text.match(new RegExp(pattern.source, "gm"))?.length ?? 0;

describe("kro dev", { timeout: 240_000 }, () => {
  it("applies the files, reports a broken edit at file:line:col and keeps running, re-applies a fixed one", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-dev-test-"));
    await writeFile(path.join(dir, "rgd.yaml"), SETTINGS_RGD);
    await writeFile(path.join(dir, "app.yaml"), settings("hello", false));
    const session = startCli(["dev", "--minimal", "-f", "rgd.yaml", "-i", "app.yaml"], { cwd: dir });
    let logs: string | undefined;
    try {
      await session.waitFor(/^kro-ts: all instances Ready$/m, 180_000);
      // The usage block is a note of its own, written just after the verdict.
      await session.waitFor(/^Component logs: \S+$/m, 30_000);
      assert.match(session.output(), /^\[\d\d:\d\d\] settings\/mine mirror: skipped \(includeWhen is false\)$/m);
      assert.match(session.output(), /^\[\d\d:\d\d\] settings\/mine: ACTIVE, Ready$/m);
      const kubeconfig = /^Ready\. kubeconfig: (\S+)$/m.exec(session.output())?.[1] ?? assert.fail(session.output());
      const stateDir = /^Component logs: (\S+)$/m.exec(session.output())?.[1] ?? assert.fail(session.output());
      logs = stateDir;
      assert.ok(existsSync(path.join(stateDir, "settings.svg")), "graph written next to the kubeconfig");
      assert.match(session.output(), new RegExp(`^graph of settings: ${stateDir}/settings\\.svg$`, "m"));

      // Break it: an int where ConfigMap data needs a string is a type error at a known line.
      const good = await readFile(path.join(dir, "rgd.yaml"), "utf8");
      const broken = good.replace("copies: ${string(schema.spec.copies)}", "copies: ${schema.spec.copies}");
      assert.notEqual(broken, good);
      const line = broken.split("\n").findIndex((l) => l.includes("copies: ${schema.spec.copies}")) + 1;
      await writeFile(path.join(dir, "rgd.yaml"), broken);
      await session.waitFor(
        new RegExp(
          `^rgd\\.yaml:${line}:\\d+: error: spec\\.resources\\[0\\]\\.template\\.data\\.copies: .*"int".*"string"`,
          "m",
        ),
        30_000,
      );
      await session.waitFor(/^ {2}but ResourceGraphDefinition settings: ResourceGraphAccepted=False: /m, 30_000);
      assert.equal(session.child.exitCode, null, "kro dev keeps running after a compile error");

      // Fix it and change the instance: both files are re-applied and the instance converges again.
      const readyLinesBefore = count(session.output(), /^kro-ts: all instances Ready$/);
      await writeFile(path.join(dir, "rgd.yaml"), good);
      await writeFile(path.join(dir, "app.yaml"), settings("hi", true));
      await eventually(
        async () => {
          assert.equal(
            await kubectlWith(kubeconfig, [
              "get",
              "configmap",
              "mine-mirror",
              "-n",
              "default",
              "-o",
              "jsonpath={.data.greeting}",
            ]),
            "hi",
          );
        },
        { timeout: 60_000 },
      );
      await eventually(
        () => {
          const after = session.output().slice(session.output().lastIndexOf("changed:"));
          assert.ok(
            count(session.output(), /^kro-ts: all instances Ready$/) > readyLinesBefore,
            "a new ready line after the change",
          );
          assert.match(after, /^kro-ts: all instances Ready$/m);
          assert.match(after, /^\[\d\d:\d\d\] settings\/mine mirror: ready$/m);
        },
        { timeout: 30_000 },
      );
      const rgd = JSON.parse(await kubectlWith(kubeconfig, ["get", "rgd", "settings", "-o", "json"])) as {
        status?: { state?: string };
      };
      assert.equal(rgd.status?.state, "Active", "the fixed RGD is accepted again");

      session.child.kill("SIGINT");
      assert.equal(await exited(session.child), 0, session.output());
      assert.equal(existsSync(stateDir), false);
      await eventually(
        () => {
          assert.deepEqual(processesMentioning(stateDir), []);
        },
        { timeout: 10_000 },
      );
    } catch (error) {
      throw withControllerLog(error, logs);
    } finally {
      session.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("--clusters 3 runs the multi-cluster example: one app in two regions, each copy in its own cluster", async () => {
    const session = startCli([
      "dev",
      "--minimal",
      "--no-watch",
      "--clusters",
      "3",
      "-f",
      path.join(REPO_ROOT, "examples/multicluster/regional-app-rgd.yaml"),
      "-i",
      path.join(REPO_ROOT, "examples/multicluster/regional-app.yaml"),
    ]);
    try {
      await session.waitFor(/^kro-ts: all instances Ready$/m, 180_000);
      const hub = /^Ready\. kubeconfig: (\S+)$/m.exec(session.output())?.[1] ?? assert.fail(session.output());
      const members = Object.fromEntries(
        [...session.output().matchAll(/^ {2}(eu-west|us-east): .* kubeconfig (\S+)$/gm)].map((m) => [
          m[1] ?? "",
          m[2] ?? "",
        ]),
      );
      assert.deepEqual(Object.keys(members).sort(), ["eu-west", "us-east"], session.output());
      const settingsUid = await kubectlWith(hub, [
        "get",
        "configmap",
        "shop-settings",
        "-n",
        "default",
        "-o",
        "jsonpath={.metadata.uid}",
      ]);
      for (const [region, kubeconfig] of Object.entries(members)) {
        const copy = JSON.parse(
          await kubectlWith(kubeconfig, ["get", "configmap", "shop", "-n", "default", "-o", "json"]),
        ) as { data?: Record<string, string> };
        assert.deepEqual(
          copy.data,
          { message: "hello, regions", region, settings: settingsUid },
          `${region}'s copy read the hub's settings`,
        );
      }
      await assert.rejects(
        kubectlWith(hub, ["get", "configmap", "shop", "-n", "default"]),
        "no regional copy in the hub",
      );
      const status = JSON.parse(
        await kubectlWith(hub, ["get", "regionalapp", "shop", "-n", "default", "-o", "jsonpath={.status}"]),
      ) as { regions?: string[] };
      assert.deepEqual(status.regions, ["eu-west", "us-east"], "the status reads both remote children");
      const stateDirs = [hub, ...Object.values(members)].map((k) => path.dirname(k));
      session.child.kill("SIGINT");
      assert.equal(await exited(session.child), 0, session.output());
      for (const dir of stateDirs) assert.equal(existsSync(dir), false, `${dir} removed`);
      await eventually(
        () => {
          for (const dir of stateDirs) assert.deepEqual(processesMentioning(dir), []);
        },
        { timeout: 10_000 },
      );
    } finally {
      session.kill();
    }
  });

  it("refuses a file it cannot read before starting a cluster", async () => {
    const session = startCli(["dev", "-f", "/nonexistent/rgd.yaml"]);
    assert.equal(await exited(session.child), 1);
    assert.match(session.output(), /kro: error: cannot read \/nonexistent\/rgd\.yaml: ENOENT/);
    assert.doesNotMatch(session.output(), /local cluster/);
  });
});
