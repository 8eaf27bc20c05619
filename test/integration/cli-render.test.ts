// `kro render` as a user runs it: the built CLI as a subprocess, its output accepted by the real
// API server, and its instance validation worded like the API server's own rejection.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { eventually } from "../support/eventually.js";
import { KubectlError, kubectl, testNamespace } from "../support/test-cluster.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const WEBAPP = path.join(ROOT, "test/fixtures/rgd/webapp.yaml");
const INSTANCE = path.join(ROOT, "examples/render/webapp-instance.yaml");
const OBSERVED = path.join(ROOT, "examples/render/webapp-observed.yaml");

type Doc = {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  status?: Record<string, unknown>;
};

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

const docs = (yaml: string): Doc[] => parseAllDocuments(yaml).map((d) => d.toJS() as Doc);
const names = (list: readonly Doc[]): string[] => list.map((d) => `${d.kind}/${d.metadata.name}`);

let dir = "";
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kro-render-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, text);
  return target;
}

describe("kro render", () => {
  it("without a cluster: renders what it can in apply order, names what waits (exit 2)", async () => {
    const result = await kro(["render", "-f", WEBAPP, "-i", INSTANCE]);
    assert.equal(result.code, 2, result.stderr);
    const rendered = docs(result.stdout);
    assert.deepEqual(names(rendered), ["Deployment/shop", "ConfigMap/shop-eu", "ConfigMap/shop-us", "WebApp/shop"]);
    assert.equal(rendered[0]?.metadata.labels?.["kro.run/node-id"], "deploy");
    assert.equal(rendered[3]?.status?.state, "IN_PROGRESS");
    assert.match(result.stderr, /^kro render: not rendered: svc: resource "svc" waits for "deploy" to be ready$/m);
    assert.match(
      result.stderr,
      /^kro render: rendered, not ready: deploy: spec\.resources\[0\]\.readyWhen\[0\]: waiting for deploy\.status .*\[missing: deploy\.status\]$/m,
    );
  });

  it("--observed supplies the live Deployment and the rest renders (exit 0)", async () => {
    const result = await kro(["render", "-f", WEBAPP, "-i", INSTANCE, "--observed", OBSERVED]);
    assert.equal(result.code, 0, result.stderr);
    const rendered = docs(result.stdout);
    assert.deepEqual(names(rendered), [
      "Deployment/shop",
      "Service/shop",
      "Ingress/shop",
      "ConfigMap/shop-eu",
      "ConfigMap/shop-us",
      "WebApp/shop",
    ]);
    const status = rendered[5]?.status;
    assert.ok(status);
    assert.deepEqual([status.available, status.state], [2, "ACTIVE"]);
  });

  it("--assume-ready renders the whole graph; values only the cluster fills in are named", async () => {
    const result = await kro(["render", "-f", WEBAPP, "-i", INSTANCE, "--assume-ready", "-o", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const list = JSON.parse(result.stdout) as { kind: string; items: Doc[] };
    assert.equal(list.kind, "List");
    assert.deepEqual(names(list.items), [
      "Deployment/shop",
      "Service/shop",
      "Ingress/shop",
      "ConfigMap/shop-eu",
      "ConfigMap/shop-us",
      "WebApp/shop",
    ]);
    const status = list.items[5]?.status;
    assert.ok(status);
    assert.deepEqual([status.url, status.available], ["http://shop.team", undefined]);
    assert.match(result.stderr, /^kro render: status field not set: status\.available: waiting for deploy\.status/m);
  });

  it("the rendered objects are accepted by the real API server", async (t) => {
    const ns = await testNamespace(t, "render");
    const instance = await file(
      "ns-instance.yaml",
      (await readFile(INSTANCE, "utf8")).replace("namespace: team", `namespace: ${ns}`),
    );
    const result = await kro(["render", "-f", WEBAPP, "-i", instance, "--assume-ready"]);
    assert.equal(result.code, 0, result.stderr);
    const children = result.stdout
      .split(/^---$/m)
      .filter((d) => !/^kind: WebApp$/m.test(d))
      .join("---\n");
    const applied = await kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], children);
    assert.match(applied, new RegExp(`deployment\\.apps/shop serverside-applied \\(server dry run\\)`));
    assert.match(applied, /ingress\.networking\.k8s\.io\/shop serverside-applied/);
    assert.equal(applied.trim().split("\n").length, 5);
  });

  it("a bad instance gets the API server's own words, with file:line:column, before anything renders (exit 1)", async (t) => {
    // A kind of our own so the CRD does not collide with other tests.
    const kind = `RenderProbe${randomBytes(3)
      .toString("hex")
      .replace(/[0-9]/g, (d) => "abcdefghij".charAt(Number(d)))}App`;
    const rgd = await file(
      "probe-rgd.yaml",
      (await readFile(WEBAPP, "utf8"))
        .replace("kind: WebApp", `kind: ${kind}`)
        .replace(
          "replicas: integer | default=2 minimum=1",
          "replicas: integer | default=2 minimum=1\n      size: string | enum=small,large default=small",
        ),
    );
    const bad = await file(
      "bad.yaml",
      [
        "apiVersion: kro.run/v1alpha1",
        `kind: ${kind}`,
        "metadata:",
        "  name: bad",
        "  namespace: default",
        "spec:",
        "  replicas: three",
        "  size: huge",
        "",
      ].join("\n"),
    );
    const result = await kro(["render", "-f", rgd, "-i", bad]);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "");
    const ours = [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer',
      'spec.size: Unsupported value: "huge": supported values: "small", "large"',
      "spec.name: Required value",
    ];
    for (const message of ours) assert.ok(result.stderr.includes(message), `${message}\n---\n${result.stderr}`);
    assert.match(result.stderr, /bad\.yaml:7:3: error: spec\.replicas: Invalid value/);

    const crd = await kro(["generate", "crd", "-f", rgd]);
    assert.equal(crd.code, 0, crd.stderr);
    await kubectl(["apply", "--server-side", "-f", "-"], crd.stdout);
    const crdName = `${kind.toLowerCase()}s.kro.run`;
    t.after(async () => {
      await kubectl(["delete", "crd", crdName, "--wait=false", "--ignore-not-found"]);
    });
    await kubectl(["wait", "--for=condition=Established", `crd/${crdName}`, "--timeout=30s"]);
    const server = await eventually(async () => {
      try {
        await kubectl(["apply", "--dry-run=server", "-f", bad]);
      } catch (error) {
        if (error instanceof KubectlError && error.stderr.includes("is invalid")) return error.stderr;
        throw error;
      }
      throw new Error("the API server accepted the bad instance");
    });
    for (const message of ours)
      assert.ok(server.includes(message), `API server said:\n${server}\nexpected to include: ${message}`);
  });

  it("an RGD that does not compile exits 1 with its diagnostics", async () => {
    const broken = await file(
      "broken.yaml",
      (await readFile(WEBAPP, "utf8")).replace("replicas: ${schema.spec.replicas}", "replicas: ${schema.spec.name}"),
    );
    const result = await kro(["render", "-f", broken, "-i", INSTANCE]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /broken\.yaml:29:11: error: spec\.resources\[0\]\.template\.spec\.replicas/);
  });

  it("documents its exit codes in --help", async () => {
    const result = await kro(["render", "--help"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /2 {2}rendered, but some resources wait on data only the cluster can provide/);
  });
});
