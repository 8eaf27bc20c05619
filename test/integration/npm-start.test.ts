// `npm start` as a newcomer runs it (minus the build, which `npm test` has just done): its own
// full local cluster, the controller in-process, both bundled examples converging with live
// progress as plain lines (no terminal here), the ready line, a kubeconfig that works with
// kubectl, and on SIGINT nothing left behind — no process started for it, no temp dir.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import { exited, kubectlWith, processesMentioning, startCli } from "../support/cli-session.js";

interface Instance {
  status?: { state?: string; url?: string; availableReplicas?: number; conditions?: { type: string; status: string }[] };
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
      assert.ok(output.indexOf("webapp/demo svc: waiting on deploy") < output.indexOf("kro-ts: all examples Ready"), "progress comes before the ready line");

      const kubeconfig = /^Ready\. kubeconfig: (\S+)$/m.exec(output)?.[1] ?? assert.fail(`no kubeconfig line:\n${output}`);
      const stateDir = /^Component logs: (\S+)$/m.exec(output)?.[1] ?? assert.fail(`no logs line:\n${output}`);
      assert.match(output, new RegExp(`^  export KUBECONFIG=${kubeconfig}$`, "m"));
      assert.ok(processesMentioning(stateDir).length >= 5, "etcd, apiserver, controller-manager, scheduler, kwok (+ reaper) run from the state dir");

      // The printed kubectl lines work with the printed kubeconfig.
      const webapp = JSON.parse(await kubectlWith(kubeconfig, ["get", "webapp", "demo", "-n", "default", "-o", "json"])) as Instance;
      assert.equal(webapp.status?.state, "ACTIVE");
      assert.equal(readyOf(webapp), "True");
      assert.equal(webapp.status.url, "http://demo.default.svc:80");
      assert.equal(webapp.status.availableReplicas, 2);
      const nginx = JSON.parse(await kubectlWith(kubeconfig, ["get", "nginxapp", "my-nginx", "-n", "default", "-o", "json"])) as Instance;
      assert.equal(readyOf(nginx), "True", JSON.stringify(nginx.status));
      const children = await kubectlWith(kubeconfig, ["get", "deployments,services,ingresses", "-A", "-l", "app.kubernetes.io/managed-by=kro", "-o", "name"]);
      for (const name of ["deployment.apps/demo", "service/demo", "ingress.networking.k8s.io/demo"]) assert.match(children, new RegExp(`^${name}$`, "m"));
      assert.match(await kubectlWith(kubeconfig, ["get", "deployment", "my-nginx", "-n", "default", "-o", "jsonpath={.status.availableReplicas}"]), /^2$/);

      // The graphs are written next to the kubeconfig.
      const svgs = readdirSync(stateDir).filter((f) => f.endsWith(".svg")).sort();
      assert.deepEqual(svgs, ["nginxapp-graph.svg", "webapp.svg"]);
      assert.match(readFileSync(`${stateDir}/webapp.svg`, "utf8"), /<svg[\s\S]*deploy[\s\S]*svc[\s\S]*ing/);
      assert.match(output, new RegExp(`^Graph: ${stateDir}/webapp\\.svg$`, "m"));

      session.child.kill("SIGINT");
      assert.equal(await exited(session.child), 0, session.output());
      assert.match(session.output(), /stopped; all processes and temporary files removed/);
      assert.equal(existsSync(stateDir), false, "state dir removed");
      await eventually(() => { assert.deepEqual(processesMentioning(stateDir), [], "no process of this cluster left (components, reaper)"); }, { timeout: 10_000 });
    } finally {
      session.kill();
    }
  });
});
