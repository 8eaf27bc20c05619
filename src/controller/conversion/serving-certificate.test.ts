import assert from "node:assert/strict";
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { describe, it } from "node:test";
import { createServingCertificate, needsRotation } from "./serving-certificate.js";

describe("createServingCertificate", () => {
  it("a CA and a serving certificate it signs, for every host, with the key of the certificate", async () => {
    const hosts = ["127.0.0.1", "kro-webhook.kro-system.svc", "kro-webhook.kro-system.svc.cluster.local"];
    const made = await createServingCertificate(hosts, 30);
    const ca = new X509Certificate(made.caPem);
    const cert = new X509Certificate(made.certPem);
    assert.equal(ca.ca, true);
    assert.equal(cert.ca, false);
    assert.ok(cert.verify(ca.publicKey), "signed by the CA");
    assert.ok(cert.checkIssued(ca));
    assert.equal(cert.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(cert.checkHost("kro-webhook.kro-system.svc"), "kro-webhook.kro-system.svc");
    assert.equal(cert.subject, "CN=kro-webhook.kro-system.svc");
    const days = (new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()) / 86_400_000;
    assert.equal(days, 30);
    const publicOfKey = createPublicKey(createPrivateKey(made.keyPem)).export({ format: "pem", type: "spki" });
    assert.equal(publicOfKey, cert.publicKey.export({ format: "pem", type: "spki" }), "the key is the certificate's");
    assert.equal(needsRotation(made, hosts, new Date()), false);
    assert.equal(needsRotation(made, [...hosts, "10.0.0.1"], new Date()), true, "a host it does not name");
    assert.equal(
      needsRotation(made, hosts, new Date(Date.now() + 25 * 86_400_000)),
      true,
      "within a third of its life of expiry",
    );
  });

  it("keeps the event loop turning while its keys are made (a controller renews its Lease meanwhile)", async () => {
    let turns = 0;
    let making = true;
    const turn = (): void => {
      turns++;
      if (making) setImmediate(turn);
    };
    setImmediate(turn);
    await createServingCertificate(["127.0.0.1"], 1);
    making = false;
    assert.ok(turns > 1, `the event loop turned ${turns} times while the keys were made`);
  });
});
