import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readRegistration } from "./kubeconfig-secret.js";

const kubeconfig = (user: string, cluster = `server: "https://10.0.0.1:6443"`) => `apiVersion: v1
kind: Config
clusters: [{ name: b, cluster: { ${cluster} } }]
users: [{ name: u, user: { ${user} } }]
contexts: [{ name: b, context: { cluster: b, user: u } }]
current-context: b
`;
const secret = (data: Record<string, string>, labels: Record<string, string> = { "kro.run/cluster-name": "b" }) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "b-kubeconfig", namespace: "kro", labels },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
});

describe("cluster registration Secrets", () => {
  it("reads the Cluster API key `value` and KREP-012's `kubeconfig`, under either label", () => {
    const a = readRegistration(secret({ value: kubeconfig(`token: "t"`) }));
    assert.ok(a !== undefined && "connection" in a, JSON.stringify(a));
    assert.equal(a.connection.server, "https://10.0.0.1:6443");
    assert.equal(a.connection.token, "t");
    const b = readRegistration(
      secret({ kubeconfig: kubeconfig(`token: "t"`) }, { "cluster.x-k8s.io/cluster-name": "b" }),
    );
    assert.ok(b !== undefined && "connection" in b && b.cluster === "b");
  });
  it("ignores a Secret without a cluster-name label", () => {
    assert.equal(readRegistration(secret({ value: "x" }, {})), undefined);
  });
  for (const [label, user, cluster] of [
    ["an exec plugin", `exec: { apiVersion: client.authentication.k8s.io/v1, command: /bin/sh }`, undefined],
    ["a token file of the controller's", `tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token`, undefined],
    ["a client certificate file", `client-certificate: /etc/x.crt, client-key: /etc/x.key`, undefined],
    ["a CA file", `token: t`, `server: "https://10.0.0.1:6443", certificate-authority: /etc/passwd`],
  ] as const) {
    it(`refuses ${label}: the Secret's author must not run or read anything in the controller`, () => {
      const r = readRegistration(secret({ value: kubeconfig(user, cluster) }));
      assert.ok(r !== undefined && "error" in r, JSON.stringify(r));
      assert.match(r.error, /not allowed in a cluster registration/);
    });
  }
  it("names the Secret when the kubeconfig is missing or malformed", () => {
    const missing = readRegistration(secret({ other: "x" }));
    assert.ok(
      missing !== undefined && "error" in missing && /Secret kro\/b-kubeconfig has no kubeconfig/.test(missing.error),
    );
    const broken = readRegistration(secret({ value: "apiVersion: v1\nclusters: [" }));
    assert.ok(
      broken !== undefined && "error" in broken && /Secret kro\/b-kubeconfig key value/.test(broken.error),
      JSON.stringify(broken),
    );
  });
});
