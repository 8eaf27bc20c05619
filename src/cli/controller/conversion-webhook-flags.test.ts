import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conversionWebhookFlags } from "./conversion-webhook-flags.js";

describe("conversion webhook flags", () => {
  it("defaults to loopback and a free port, dialled directly", () => {
    assert.deepEqual(conversionWebhookFlags({}), { host: "127.0.0.1", port: 0 });
  });

  it("takes an advertised address the API server dials instead of the bind address", () => {
    assert.deepEqual(
      conversionWebhookFlags({
        conversionWebhookBindAddress: "127.0.0.1:9443",
        conversionWebhookAdvertiseAddress: "lb.example.com:443",
        conversionWebhookSecret: "kro-system/webhook-cert",
      }),
      {
        host: "127.0.0.1",
        port: 9443,
        advertise: { host: "lb.example.com", port: 443 },
        secret: { namespace: "kro-system", name: "webhook-cert" },
      },
    );
    assert.deepEqual(
      conversionWebhookFlags({
        conversionWebhookBindAddress: ":9443",
        conversionWebhookAdvertiseAddress: "[fd00::1]:8443",
      }),
      { host: "0.0.0.0", port: 9443, advertise: { host: "fd00::1", port: 8443 } },
    );
  });

  it("refuses an address the API server cannot dial, naming the flag", () => {
    assert.throws(
      () => conversionWebhookFlags({ conversionWebhookAdvertiseAddress: "0.0.0.0:443" }),
      /--conversion-webhook-advertise-address needs a host the API server can dial, got "0.0.0.0:443"/,
    );
    assert.throws(
      () => conversionWebhookFlags({ conversionWebhookAdvertiseAddress: ":443" }),
      /--conversion-webhook-advertise-address needs a host/,
    );
    assert.throws(
      () => conversionWebhookFlags({ conversionWebhookAdvertiseAddress: "lb.example.com:0" }),
      /--conversion-webhook-advertise-address must be host:port, got "lb.example.com:0"/,
    );
    assert.throws(
      () => conversionWebhookFlags({ conversionWebhookAdvertiseAddress: "lb.example.com" }),
      /must be host:port/,
    );
    assert.throws(
      () => conversionWebhookFlags({ conversionWebhookBindAddress: "0.0.0.0:9443" }),
      /listens on every interface, which the API server cannot dial/,
    );
  });

  it("a Service and an advertised address are one choice", () => {
    assert.throws(
      () =>
        conversionWebhookFlags({
          conversionWebhookAdvertiseAddress: "lb:443",
          conversionWebhookService: "kro-system/kro-ts-webhook",
        }),
      /give one/,
    );
    assert.deepEqual(
      conversionWebhookFlags({
        conversionWebhookBindAddress: "0.0.0.0:9443",
        conversionWebhookService: "kro-system/kro-ts-webhook:443",
      }).service,
      { namespace: "kro-system", name: "kro-ts-webhook", port: 443 },
    );
  });
});
