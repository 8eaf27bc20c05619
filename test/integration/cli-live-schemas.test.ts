// `kro validate --cluster`: a kind that only the live cluster knows (a CRD installed here, not in
// the bundled built-in schemas) is typed from the server's OpenAPI v3, its scope from discovery,
// and the documents are cached on disk and read back from there.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { CompletionItem } from "vscode-languageserver/node";
import { eventually } from "../support/eventually.js";
import { LspClient, rangeAt, rangeOf } from "../unit-support/lsp/lsp-client.js";
import { kubectl, testCluster } from "../support/test-cluster.js";
import { installControllerCrds } from "../../src/controller/crds/index.js";
import { createKubeClient } from "../../src/kube/index.js";

const CLI = path.join(fileURLToPath(new URL("../../../", import.meta.url)), "dist/src/cli/main.js");
const GROUP = "livetest.kro-ts.dev";

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.${GROUP}
spec:
  group: ${GROUP}
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
                colour: {type: string}
`;

function rgd(specLine: string, metadataExtra = ""): string {
  return `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: gadgetapp
spec:
  schema:
    apiVersion: v1alpha1
    kind: GadgetApp
    spec:
      name: string | required=true
      count: integer | default=1
  resources:
    - id: gadget
      template:
        apiVersion: ${GROUP}/v1
        kind: Gadget
        metadata:
          name: \${schema.spec.name}${metadataExtra}
        spec:
          ${specLine}
`;
}

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

describe("kro validate --cluster", () => {
  let dir = "";
  let cache = "";
  const write = async (name: string, text: string): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };
  const validate = (file: string, ...extra: string[]) =>
    kro([
      "validate",
      "-f",
      file,
      "--cluster",
      "--kubeconfig",
      testCluster().kubeconfig,
      "--schema-cache",
      cache,
      ...extra,
    ]);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kro-live-"));
    cache = path.join(dir, "cache");
    await kubectl(["apply", "-f", "-"], CRD);
    await kubectl(["wait", "--for=condition=Established", `crd/gadgets.${GROUP}`, "--timeout=30s"]);
    // validate --cluster also dry-runs each RGD: the cluster must serve the kind, as with kro installed.
    const client = await createKubeClient({ kubeconfig: testCluster().kubeconfig });
    try {
      await installControllerCrds(client);
    } finally {
      client.close();
    }
  });
  after(async () => {
    await kubectl(["delete", "crd", `gadgets.${GROUP}`, "--ignore-not-found", "--wait=false"]);
    await rm(dir, { recursive: true, force: true });
  });

  it("types the CRD's fields from the live OpenAPI v3 (and offline they are untyped)", async () => {
    const file = await write("mistyped.yaml", rgd("size: ${schema.spec.name}"));
    const offline = await kro(["validate", "-f", file]);
    assert.equal(offline.code, 0, offline.stderr);
    // the server publishes a new CRD's OpenAPI shortly after it is Established (until then the
    // kind is "not served": also exit 1, so the wait is for the type error itself)
    await eventually(async () => {
      const result = await validate(file);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(
        result.stderr,
        /mistyped\.yaml:\d+:\d+: error: spec\.resources\[0\]\.template\.spec\.size: expression "schema\.spec\.name" returns type "string"/,
      );
    });
  });

  it("accepts a well-typed use and learns the scope from discovery", async () => {
    const good = await validate(await write("good.yaml", rgd("size: ${schema.spec.count}")));
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /^gadgetapp: valid /m);
    const live = ["--cluster", "--kubeconfig", testCluster().kubeconfig, "--schema-cache", cache];
    const crd = await kro(["generate", "crd", "-f", path.join(dir, "good.yaml"), ...live]);
    assert.equal(crd.code, 0, crd.stderr);
    assert.match(crd.stdout, /^ {2}name: gadgetapps\.kro\.run$/m);
    const picture = await kro(["graph", "-f", path.join(dir, "good.yaml"), ...live]);
    assert.equal(picture.code, 0, picture.stderr);
    assert.match(picture.stdout, /^ {2}gadget +Gadget livetest\.kro-ts\.dev\/v1 +wave 1 +<- instance$/m);
    const namespaced = await validate(
      await write("namespaced.yaml", rgd("size: ${schema.spec.count}", "\n          namespace: default")),
    );
    assert.equal(namespaced.code, 1);
    assert.match(namespaced.stderr, /Gadget is cluster-scoped and must not set metadata\.namespace/);
  });

  it("reads cached documents back from disk", async () => {
    const files = (await readdir(cache, { recursive: true })).filter((f) => f.endsWith(".json"));
    const cached = [];
    for (const f of files)
      if ((await readFile(path.join(cache, f), "utf8")).includes('"Gadget"')) cached.push(path.join(cache, f));
    assert.equal(cached.length, 1, `one cached ${GROUP}/v1 document in ${JSON.stringify(files)}`);
    const [gadgetDoc] = cached;
    assert.ok(gadgetDoc);
    // Retype size as a string in the cache only: the compiler must now accept a string there.
    const text = await readFile(gadgetDoc, "utf8");
    const edited = text.replace(/"size":\{"type":"integer"\}/, '"size":{"type":"string"}');
    assert.notEqual(edited, text);
    await writeFile(gadgetDoc, edited);
    const result = await validate(await write("from-cache.yaml", rgd("size: ${schema.spec.name}")));
    assert.equal(result.code, 0, result.stderr);
  });

  it("reports what the API server refuses, at the document, before anything is written", async () => {
    // A CRD the compiler cannot judge: uniqueItems is refused by the API server in a structural schema.
    const refusedCrd = CRD.replace(/gadgets/g, "widgets")
      .replace(/Gadget/g, "Widget")
      .replace(/gadget\b/g, "widget")
      .replace(
        "colour: {type: string}",
        "colour: {type: string}\n                tags: {type: array, uniqueItems: true, items: {type: string}}",
      );
    const file = await write("refused.yaml", `${rgd("colour: ${schema.spec.name}")}---\n${refusedCrd}`);
    await eventually(async () => {
      const result = await validate(file);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(
        result.stderr,
        /refused\.yaml:\d+:\d+: error: the API server refuses this CustomResourceDefinition \(server-side dry run\): .*uniqueItems/,
      );
      assert.doesNotMatch(result.stdout, /gadgetapp: valid/);
    });
    await assert.rejects(kubectl(["get", "crd", `widgets.${GROUP}`]), /NotFound|not found/);
    // The RGD itself is accepted, and so is the CRD it generates.
    const good = await validate(await write("good-again.yaml", rgd("colour: ${schema.spec.name}")));
    assert.equal(good.code, 0, good.stderr);
    await assert.rejects(kubectl(["get", "rgd", "gadgetapp"]), /NotFound|not found/);
  });

  it("kro lsp --cluster types and completes a kind only the cluster knows", async () => {
    // Its own cache: the test above edited the shared one.
    const args = [
      "lsp",
      "--cluster",
      "--kubeconfig",
      testCluster().kubeconfig,
      "--schema-cache",
      path.join(dir, "lsp"),
    ];
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    const client = new LspClient(child.stdout, child.stdin);
    try {
      await client.initialize();
      const uri = "file:///work/gadget-rgd.yaml";
      const text = rgd("size: ${schema.spec.name}\n          colour: ${schema.spec.name}");
      await client.open(uri, text);
      const { diagnostics } = await client.nextDiagnostics(uri);
      // Offline the kind is unknown and its fields untyped: only the live schema finds this error,
      // and only live discovery knows the kind is cluster-scoped (the warning).
      const size = text.indexOf("size: ${") + "size: ".length;
      assert.deepEqual(
        diagnostics.map((d) => [
          d.severity,
          d.range,
          (typeof d.message === "string" ? d.message : d.message.value).split(" (")[0],
        ]),
        [
          [
            2,
            rangeAt(text, text.indexOf("kind: Gadget\n"), "kind: Gadget".length),
            'resource "gadget" is cluster-scoped, but instances are namespaced: only instance authors who may write it cluster-wide themselves are admitted',
          ],
          [
            1,
            rangeAt(text, size, "${schema.spec.name}".length),
            'expression "schema.spec.name" returns type "string" but expected "int"',
          ],
        ],
      );
      const edited = text.replace("colour: ${schema.spec.name}", "colour: ${gadget.spec.");
      await client.change(uri, edited, 2);
      const items = await client.request<CompletionItem[]>("textDocument/completion", {
        textDocument: { uri },
        position: rangeOf(edited, "colour: ${gadget.spec.").end,
      });
      assert.deepEqual(
        items.map((i) => [i.label, i.detail]),
        [
          ["colour", "string"],
          ["size", "integer"],
        ],
      );
    } finally {
      client.connection.dispose();
      child.kill();
    }
  });

  it("reports an unreachable cluster as an error, not a crash", async () => {
    const kubeconfig = await write(
      "nowhere.kubeconfig",
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const file = await write("any.yaml", rgd("size: ${schema.spec.count}"));
    const result = await kro([
      "validate",
      "-f",
      file,
      "--cluster",
      "--kubeconfig",
      kubeconfig,
      "--schema-cache",
      cache,
    ]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^kro: error: --cluster: cannot read schemas from https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/m,
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });
});
