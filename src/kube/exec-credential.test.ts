// Exec credential plugins: ExecCredential parsing (v1, v1beta1), KUBERNETES_EXEC_INFO, caching
// until expirationTimestamp, a re-run after invalidate() (what a 401 does), clear failures.
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ExecCredentialError } from "./errors.js";
import { ExecCredentialProvider } from "./exec-credential.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "exec-cred-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plugin script: counts its runs in a file and prints what `body` returns. */
async function plugin(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    `#!${process.execPath}
const fs = require("node:fs");
const runs = ${JSON.stringify(path.join(dir, `${name}.runs`))};
fs.appendFileSync(runs, "x");
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
const n = fs.readFileSync(runs, "utf8").length;
${body}
`,
  );
  await chmod(file, 0o755);
  return file;
}

const v1 = "client.authentication.k8s.io/v1" as const;
const cluster = { server: "https://k:6443", certificateAuthorityData: "Q0E=", insecureSkipTlsVerify: false };

describe("exec credential plugin", () => {
  it("passes KUBERNETES_EXEC_INFO and env, caches until expiry, re-runs after it and after invalidate()", async () => {
    const command = await plugin(
      "token",
      `
      console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential",
        status: { token: "tok-" + n + "-" + process.env.EXTRA + "-" + info.spec.cluster.server, expirationTimestamp: process.env.EXPIRES } }));`,
    );
    let now = Date.parse("2030-01-01T00:00:00Z");
    const provider = new ExecCredentialProvider(
      {
        apiVersion: v1,
        command,
        args: [],
        env: { EXTRA: "e", EXPIRES: "2030-01-01T01:00:00Z" },
        provideClusterInfo: true,
      },
      { PATH: process.env.PATH },
      cluster,
      () => now,
    );
    const first = await provider.get();
    assert.equal(first.token, "tok-1-e-https://k:6443");
    assert.equal(first.expiresAt, Date.parse("2030-01-01T01:00:00Z"));
    assert.equal((await provider.get()).token, "tok-1-e-https://k:6443", "cached");
    now = Date.parse("2030-01-01T00:59:55Z");
    assert.equal((await provider.get()).token, "tok-2-e-https://k:6443", "refreshed just before expiry");
    now = Date.parse("2030-01-01T00:30:00Z");
    provider.invalidate();
    assert.equal((await provider.get()).token, "tok-3-e-https://k:6443", "re-run after a 401");
    await Promise.all([provider.get(), provider.get()]);
    assert.equal((await readFile(path.join(dir, "token.runs"), "utf8")).length, 3);
  });

  it("accepts v1beta1 and client certificates, and rejects wrong output clearly", async () => {
    const cert = await plugin(
      "cert",
      `console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1beta1", kind: "ExecCredential", status: { clientCertificateData: "CERT", clientKeyData: "KEY" } }));`,
    );
    const got = await new ExecCredentialProvider(
      {
        apiVersion: "client.authentication.k8s.io/v1beta1",
        command: cert,
        args: [],
        env: {},
        provideClusterInfo: false,
      },
      {},
      cluster,
    ).get();
    assert.deepEqual([got.clientCert?.toString(), got.clientKey?.toString(), got.token], ["CERT", "KEY", undefined]);

    const bad = async (body: string, pattern: RegExp, name: string): Promise<void> => {
      const command = await plugin(name, body);
      await assert.rejects(
        new ExecCredentialProvider(
          { apiVersion: v1, command, args: [], env: {}, provideClusterInfo: false },
          {},
          cluster,
        ).get(),
        (e: unknown) => e instanceof ExecCredentialError && pattern.test(e.message) && e.message.includes(command),
      );
    };
    await bad(`console.log("not json")`, /did not print JSON/, "garbage");
    await bad(
      `console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1beta1", kind: "ExecCredential", status: { token: "t" } }))`,
      /the kubeconfig asks for client\.authentication\.k8s\.io\/v1/,
      "version",
    );
    await bad(
      `console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential", status: {} }))`,
      /neither token/,
      "empty",
    );
    await bad(`console.error("login required"); process.exit(3)`, /login required/, "fails");
    await assert.rejects(
      new ExecCredentialProvider(
        {
          apiVersion: v1,
          command: path.join(dir, "absent"),
          args: [],
          env: {},
          provideClusterInfo: false,
          installHint: "brew install absent",
        },
        {},
        cluster,
      ).get(),
      /brew install absent/,
    );
  });
});
