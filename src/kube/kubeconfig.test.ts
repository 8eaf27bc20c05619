// Kubeconfig loading: precedence, $KUBECONFIG merging as kubectl does, contexts, relative paths,
// inline and file credentials, in-cluster config, and errors that name the file and field.
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import { resolveConnection } from "./create-client.js";
import { KubeconfigError } from "./errors.js";
import { loadInClusterConfig } from "./in-cluster.js";
import { kubeconfigFiles, loadKubeconfig } from "./kubeconfig.js";

let dir: string;
const write = async (name: string, doc: unknown): Promise<string> => {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof doc === "string" ? doc : stringify(doc));
  return file;
};
const b64 = (s: string): string => Buffer.from(s).toString("base64");

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kubeconfig-test-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectError(fn: () => unknown, file: string, field: string, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof KubeconfigError, String(e));
    assert.equal(e.file, file);
    assert.equal(e.field, field);
    assert.equal(e.code, "KUBECONFIG_INVALID");
    assert.match(e.message, pattern);
    assert.ok(e.message.includes(file) && e.message.includes(field));
    return true;
  });
}

describe("kubeconfig", () => {
  it("picks --kubeconfig, then $KUBECONFIG, then ~/.kube/config", () => {
    assert.deepEqual(kubeconfigFiles({ kubeconfig: "/x", env: { KUBECONFIG: "/y", HOME: "/h" } }), ["/x"]);
    assert.deepEqual(kubeconfigFiles({ env: { KUBECONFIG: `/a${path.delimiter}${path.delimiter}/b`, HOME: "/h" } }), [
      "/a",
      "/b",
    ]);
    assert.deepEqual(kubeconfigFiles({ env: { HOME: "/h" } }), ["/h/.kube/config"]);
  });

  it("merges $KUBECONFIG files: the first file to define a name or current-context wins", async () => {
    const first = await write("merge/first.yaml", {
      "current-context": "one",
      clusters: [
        { name: "c1", cluster: { server: "https://one.example:6443", "certificate-authority-data": b64("CA-ONE") } },
      ],
      users: [{ name: "u", user: { token: "first-token" } }],
      contexts: [{ name: "one", context: { cluster: "c1", user: "u", namespace: "team" } }],
    });
    const second = await write("merge/second.yaml", {
      "current-context": "two",
      clusters: [
        { name: "c1", cluster: { server: "https://ignored.example" } },
        { name: "c2", cluster: { server: "https://two.example/", "insecure-skip-tls-verify": true } },
      ],
      users: [
        { name: "u", user: { token: "ignored" } },
        { name: "u2", user: { tokenFile: "tokens/t" } },
      ],
      contexts: [{ name: "two", context: { cluster: "c2", user: "u2" } }],
    });
    const env = { KUBECONFIG: [first, path.join(dir, "missing.yaml"), second].join(path.delimiter) };
    const one = loadKubeconfig({ env });
    assert.equal(one.server, "https://one.example:6443");
    assert.equal(one.ca?.toString(), "CA-ONE");
    assert.equal(one.token, "first-token");
    assert.equal(one.namespace, "team");
    const two = loadKubeconfig({ env, context: "two" });
    assert.equal(two.server, "https://two.example");
    assert.equal(two.insecureSkipTlsVerify, true);
    assert.equal(two.namespace, "default");
    assert.equal(two.tokenFile, path.join(dir, "merge/tokens/t"), "relative to the file that names it");
  });

  it("reads client certificate, key and CA from files (relative) or inline data", async () => {
    await write("certs/ca.pem", "CA-PEM");
    await write("certs/client.pem", "CERT-PEM");
    await write("certs/client-key.pem", "KEY-PEM");
    const files = await write("certs/config", {
      "current-context": "files",
      clusters: [
        {
          name: "c",
          cluster: { server: "https://k:6443", "certificate-authority": "ca.pem", "tls-server-name": "kubernetes" },
        },
      ],
      users: [
        {
          name: "f",
          user: { "client-certificate": "client.pem", "client-key": path.join(dir, "certs/client-key.pem") },
        },
        { name: "d", user: { "client-certificate-data": b64("CERT-DATA"), "client-key-data": b64("KEY-DATA") } },
      ],
      contexts: [
        { name: "files", context: { cluster: "c", user: "f" } },
        { name: "data", context: { cluster: "c", user: "d" } },
      ],
    });
    const f = loadKubeconfig({ kubeconfig: files, env: {} });
    assert.deepEqual(
      [f.ca?.toString(), f.clientCert?.toString(), f.clientKey?.toString(), f.tlsServerName],
      ["CA-PEM", "CERT-PEM", "KEY-PEM", "kubernetes"],
    );
    const d = loadKubeconfig({ kubeconfig: files, context: "data", env: {} });
    assert.deepEqual([d.clientCert?.toString(), d.clientKey?.toString()], ["CERT-DATA", "KEY-DATA"]);
  });

  it("parses exec plugin settings (v1 and v1beta1)", async () => {
    const file = await write("exec/config", {
      "current-context": "x",
      clusters: [{ name: "c", cluster: { server: "https://k" } }],
      users: [
        {
          name: "e",
          user: {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1beta1",
              command: "./bin/cred",
              args: ["get", "token"],
              env: [{ name: "A", value: "1" }],
              provideClusterInfo: true,
              installHint: "install cred",
            },
          },
        },
      ],
      contexts: [{ name: "x", context: { cluster: "c", user: "e" } }],
    });
    const exec = loadKubeconfig({ kubeconfig: file, env: {} }).exec;
    assert.deepEqual(exec, {
      apiVersion: "client.authentication.k8s.io/v1beta1",
      command: path.join(dir, "exec/bin/cred"),
      args: ["get", "token"],
      env: { A: "1" },
      provideClusterInfo: true,
      installHint: "install cred",
    });
  });

  it("names the file and field of every problem", async () => {
    const base = {
      clusters: [{ name: "c", cluster: { server: "https://k" } }],
      users: [{ name: "u", user: {} }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    };
    const noCurrent = await write("bad/no-current", base);
    expectError(() => loadKubeconfig({ kubeconfig: noCurrent, env: {} }), noCurrent, "current-context", /not set/);
    expectError(
      () => loadKubeconfig({ kubeconfig: noCurrent, context: "nope", env: {} }),
      noCurrent,
      "contexts",
      /context "nope" not found \(known: x\)/,
    );
    const badCert = await write("bad/cert", {
      ...base,
      "current-context": "x",
      users: [{ name: "u", user: { "client-certificate": "nope.pem", "client-key": "nope.key" } }],
    });
    expectError(
      () => loadKubeconfig({ kubeconfig: badCert, env: {} }),
      badCert,
      "users[0].client-certificate",
      /cannot read .*nope\.pem/,
    );
    const badExec = await write("bad/exec", {
      ...base,
      "current-context": "x",
      users: [{ name: "u", user: { exec: { apiVersion: "client.authentication.k8s.io/v1alpha1", command: "x" } } }],
    });
    expectError(
      () => loadKubeconfig({ kubeconfig: badExec, env: {} }),
      badExec,
      "users[0].exec.apiVersion",
      /unsupported/,
    );
    const noServer = await write("bad/server", {
      ...base,
      "current-context": "x",
      clusters: [{ name: "c", cluster: { server: "" } }],
    });
    expectError(() => loadKubeconfig({ kubeconfig: noServer, env: {} }), noServer, "clusters[0].server", /missing/);
    const badYaml = await write("bad/yaml", "clusters: [\n  - {");
    expectError(() => loadKubeconfig({ kubeconfig: badYaml, env: {} }), badYaml, "", /not valid YAML/);
    const missing = path.join(dir, "bad/missing");
    expectError(() => loadKubeconfig({ kubeconfig: missing, env: {} }), missing, "", /cannot read/);
    const keyOnly = await write("bad/key-only", {
      ...base,
      "current-context": "x",
      users: [{ name: "u", user: { "client-key-data": b64("k") } }],
    });
    expectError(
      () => loadKubeconfig({ kubeconfig: keyOnly, env: {} }),
      keyOnly,
      "users[0].client-certificate",
      /together/,
    );
  });

  it("loads in-cluster config from the service account mount, and falls back to it without a kubeconfig", async () => {
    const sa = path.join(dir, "sa");
    await write("sa/token", "sa-token\n");
    await write("sa/ca.crt", "SA-CA");
    await write("sa/namespace", "kro-system\n");
    const env = {
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      KUBERNETES_SERVICE_PORT: "443",
      HOME: path.join(dir, "empty-home"),
    };
    const config = loadInClusterConfig({ env, serviceAccountDir: sa });
    assert.deepEqual(
      [config.server, config.namespace, config.ca?.toString(), config.tokenFile],
      ["https://10.0.0.1:443", "kro-system", "SA-CA", path.join(sa, "token")],
    );
    assert.equal(resolveConnection({ env, serviceAccountDir: sa }).source, "in-cluster service account");
    assert.equal(
      loadInClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "fd00::1" }, serviceAccountDir: sa }).server,
      "https://[fd00::1]:443",
    );
    expectError(
      () => loadInClusterConfig({ env: {}, serviceAccountDir: sa }),
      "in-cluster",
      "KUBERNETES_SERVICE_HOST",
      /not running in a pod/,
    );
  });
});
