import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { profileCluster, profileTokenSecret, profileUnhealthy, readProfile } from "./cluster-profile.js";

const CA = Buffer.from("-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n").toString("base64");
const provider = (name: string, cluster: Record<string, unknown> = {}) => ({
  name,
  cluster: { server: `https://${name}.example:6443`, "certificate-authority-data": CA, ...cluster },
});
const profile = (status: Record<string, unknown>, name = "eu-west") => ({
  apiVersion: "multicluster.x-k8s.io/v1alpha1",
  kind: "ClusterProfile",
  metadata: { name, namespace: "kro" },
  spec: { clusterManager: { name: "test" } },
  status,
});
const tokenSecret = (token: string, name = "eu-west") => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace: "kro" },
  data: { token: Buffer.from(token).toString("base64") },
});

describe("ClusterProfile registrations", () => {
  it("names the cluster by the profile's name, connects to its access provider's server with the Secret's token", () => {
    const p = profile({ accessProviders: [provider("kubeconfig")] });
    assert.equal(profileCluster(p), "eu-west");
    const r = readProfile(p, tokenSecret("t0k\n"));
    assert.ok("connection" in r, JSON.stringify(r));
    assert.equal(r.cluster, "eu-west");
    assert.equal(r.connection.server, "https://kubeconfig.example:6443");
    assert.equal(r.connection.token, "t0k");
    assert.equal(r.connection.ca?.toString(), Buffer.from(CA, "base64").toString());
    assert.match(r.connection.source, /ClusterProfile kro\/eu-west .*Secret kro\/eu-west key token/);
  });

  it("prefers the secretreader provider, and accessProviders over the deprecated credentialProviders", () => {
    const both = readProfile(
      profile({
        credentialProviders: [provider("old")],
        accessProviders: [provider("oidc"), provider("secretreader")],
      }),
      tokenSecret("t"),
    );
    assert.ok(
      "connection" in both && both.connection.server === "https://secretreader.example:6443",
      JSON.stringify(both),
    );
    const first = readProfile(
      profile({ credentialProviders: [provider("old")], accessProviders: [provider("oidc")] }),
      tokenSecret("t"),
    );
    assert.ok("connection" in first && first.connection.server === "https://oidc.example:6443");
    const deprecated = readProfile(profile({ credentialProviders: [provider("old")] }), tokenSecret("t"));
    assert.ok("connection" in deprecated && deprecated.connection.server === "https://old.example:6443");
  });

  it("reads the token Secret named by the exec extension's clusterName, and never runs the exec plugin", () => {
    const p = profile({
      accessProviders: [
        provider("secretreader", {
          extensions: [{ name: "client.authentication.k8s.io/exec", extension: { clusterName: "spoke-1" } }],
        }),
      ],
    });
    assert.equal(profileTokenSecret(p), "spoke-1");
    const r = readProfile(p, tokenSecret("t", "spoke-1"));
    assert.ok("connection" in r, JSON.stringify(r));
    assert.equal(r.connection.exec, undefined);
    assert.equal(r.connection.tokenFile, undefined);
  });

  it("ControlPlaneHealthy=False makes the cluster unusable, naming the reason; True, Unknown or absent do not", () => {
    const sick = profile({
      accessProviders: [provider("p")],
      conditions: [
        { type: "ControlPlaneHealthy", status: "False", reason: "Unreachable", message: "no heartbeat for 5m" },
      ],
    });
    assert.equal(profileUnhealthy(sick), "ControlPlaneHealthy=False (Unreachable: no heartbeat for 5m)");
    const r = readProfile(sick, tokenSecret("t"));
    assert.ok("error" in r);
    assert.equal(
      r.error,
      "ClusterProfile kro/eu-west reports ControlPlaneHealthy=False (Unreachable: no heartbeat for 5m)",
    );
    for (const status of ["True", "Unknown"]) {
      assert.equal(profileUnhealthy(profile({ conditions: [{ type: "ControlPlaneHealthy", status }] })), undefined);
    }
    assert.equal(profileUnhealthy(profile({})), undefined);
  });

  it("explains what is missing: an access provider, a server, the Secret, its token key", () => {
    const cases: [Parameters<typeof readProfile>, RegExp][] = [
      [[profile({}), tokenSecret("t")], /ClusterProfile kro\/eu-west has no access provider in its status/],
      [
        [profile({ accessProviders: [{ name: "p", cluster: {} }] }), tokenSecret("t")],
        /access provider p has no server URL/,
      ],
      [
        [profile({ accessProviders: [provider("p")] }), undefined],
        /has no credentials: expected Secret kro\/eu-west with key token/,
      ],
      [
        [profile({ accessProviders: [provider("p")] }), { ...tokenSecret("t"), data: { other: "eA==" } }],
        /Secret kro\/eu-west has no key token/,
      ],
    ];
    for (const [args, expected] of cases) {
      const r = readProfile(...args);
      assert.ok("error" in r, JSON.stringify(r));
      assert.match(r.error, expected);
    }
  });

  it("refuses a CA file (inline credentials only), and a profile name that cannot name a cluster", () => {
    const r = readProfile(
      profile({ accessProviders: [provider("p", { "certificate-authority": "/etc/passwd" })] }),
      tokenSecret("t"),
    );
    assert.ok("error" in r && /certificate-authority \(a file\) is not allowed/.test(r.error), JSON.stringify(r));
    assert.equal(profileCluster(profile({}, "Not.A.Label")), undefined);
  });

  it("fingerprints only the connection: a status update of properties or conditions changes nothing", () => {
    const a = readProfile(
      profile({ accessProviders: [provider("p")], properties: [{ name: "region", value: "eu" }] }),
      tokenSecret("t"),
    );
    const b = readProfile(
      profile({
        accessProviders: [provider("p")],
        properties: [{ name: "region", value: "eu", lastObservedTime: "2026-01-01T00:00:00Z" }],
        conditions: [{ type: "ControlPlaneHealthy", status: "True" }],
      }),
      tokenSecret("t"),
    );
    const rotated = readProfile(profile({ accessProviders: [provider("p")] }), tokenSecret("t2"));
    assert.ok("fingerprint" in a && "fingerprint" in b && "fingerprint" in rotated);
    assert.equal(a.fingerprint, b.fingerprint);
    assert.notEqual(a.fingerprint, rotated.fingerprint, "a rotated token is a new client");
  });
});
