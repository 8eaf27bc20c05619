import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bearerConnection, type ConnectionConfig } from "./connection-config.js";

describe("bearerConnection", () => {
  it("keeps the server and its TLS trust and drops every credential of the original", () => {
    const controller: ConnectionConfig = {
      source: "in-cluster",
      server: "https://10.0.0.1:443",
      namespace: "kro-system",
      ca: Buffer.from("ca"),
      insecureSkipTlsVerify: false,
      tlsServerName: "kubernetes",
      clientCert: Buffer.from("cert"),
      clientKey: Buffer.from("key"),
      token: "controller-token",
      tokenFile: "/var/run/token",
      basicAuth: { username: "u", password: "p" },
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: "x",
        args: [],
        env: {},
        provideClusterInfo: false,
      },
    };
    assert.deepEqual(bearerConnection(controller, "user-token", "team-a", "web view user alice"), {
      source: "web view user alice",
      server: "https://10.0.0.1:443",
      namespace: "team-a",
      ca: Buffer.from("ca"),
      insecureSkipTlsVerify: false,
      tlsServerName: "kubernetes",
      token: "user-token",
    });
  });
});
