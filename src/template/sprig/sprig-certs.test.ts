// Keys and certificates: what Go's x509 would make (checked with node:crypto's X509Certificate),
// and stable under a seeded source — a chart's genCA renders the same bytes on every resync.
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { describe, it } from "node:test";
import { seededEntropy } from "./entropy.js";
import { parseTemplate, renderTemplate } from "../index.js";

const NOW = 1_764_560_000n * 1_000_000_000n;
const render = (t: string, seed = "s"): string =>
  renderTemplate(parseTemplate("t", t), {}, { entropy: seededEntropy([seed], NOW) });
const certs = (out: string): X509Certificate[] =>
  (out.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/g) ?? []).map(
    (c) => new X509Certificate(c),
  );
const keys = (out: string): string[] =>
  out.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----\n/g) ?? [];

describe("certificates", () => {
  const chain = `{{ $ca := genCA "my-ca" 365 }}{{ $c := genSignedCert "svc.ns" (list "10.0.0.1" "::1") (list "a.example" "b") 30 $ca }}{{ $ca.Cert }}{{ $ca.Key }}{{ $c.Cert }}{{ $c.Key }}`;

  it("genCA + genSignedCert: a CA, a leaf it signed, SANs, validity from the source's now", () => {
    const out = render(chain);
    const [ca, leaf] = certs(out);
    assert.ok(ca !== undefined && leaf !== undefined);
    assert.equal(ca.subject, "CN=my-ca");
    assert.equal(ca.ca, true);
    assert.ok(ca.verify(ca.publicKey));
    assert.equal(leaf.issuer, "CN=my-ca");
    assert.equal(leaf.ca, false);
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
    assert.equal(leaf.subjectAltName, "DNS:a.example, DNS:b, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1");
    assert.equal(new Date(leaf.validFrom).getTime(), Number(NOW / 1_000_000n));
    assert.equal(new Date(leaf.validTo).getTime() - new Date(leaf.validFrom).getTime(), 30 * 86_400_000);
    const [caKey, leafKey] = keys(out);
    assert.ok(
      ca.checkPrivateKey(createPrivateKey(caKey ?? "")) && leaf.checkPrivateKey(createPrivateKey(leafKey ?? "")),
    );
    assert.match(caKey ?? "", /^-----BEGIN RSA PRIVATE KEY-----/);
    assert.equal(createPrivateKey(caKey ?? "").asymmetricKeyDetails?.modulusLength, 2048);
  });

  it("a seeded source gives the same chain every time, another seed another chain", () => {
    assert.equal(render(chain), render(chain));
    assert.notEqual(render(chain, "t"), render(chain));
  });

  it("…WithKey: ECDSA and Ed25519 keys sign, and are stable (ECDSA signatures memoised)", () => {
    const t = `{{ $k := genPrivateKey "ecdsa" }}{{ $e := genPrivateKey "ed25519" }}{{ $ca := genCAWithKey "ed-ca" 3 $e }}{{ (genSelfSignedCertWithKey "ec" nil (list "x") 2 $k).Cert }}{{ $ca.Cert }}{{ (genSignedCertWithKey "leaf" nil nil 3 $ca $k).Cert }}{{ $k }}`;
    const out = render(t);
    assert.equal(render(t), out);
    const [ec, edCa, leaf] = certs(out);
    assert.ok(ec !== undefined && edCa !== undefined && leaf !== undefined);
    assert.ok(ec.verify(ec.publicKey) && edCa.verify(edCa.publicKey) && leaf.verify(edCa.publicKey));
    assert.equal(createPrivateKey(keys(out).at(-1) ?? "").asymmetricKeyDetails?.namedCurve, "prime256v1");
  });

  it("genPrivateKey rsa is a 4096-bit key, the same for the same seed (and free the second time)", () => {
    const first = render('{{ genPrivateKey "rsa" }}', "rsa");
    // Fresh primes are charged to the work budget (~1.2 M steps each); memoised ones are not, so
    // the same key fits in a budget far below one fresh prime.
    const again = renderTemplate(
      parseTemplate("t", '{{ genPrivateKey "rsa" }}'),
      {},
      { maxSteps: 100_000, entropy: seededEntropy(["rsa"], NOW) },
    );
    assert.equal(again, first, "the primes are memoised");
    assert.equal(createPrivateKey(first).asymmetricKeyDetails?.modulusLength, 4096);
  });

  it("charges fresh RSA work to the render's budget: a hostile range over genCA fails, a fresh render may again", () => {
    const tight = { maxSteps: 1_000_000 };
    assert.throws(
      () =>
        renderTemplate(
          parseTemplate("t", '{{ range until 50 }}{{ (genCA "x" 1).Cert | len }}{{ end }}'),
          {},
          { ...tight, entropy: seededEntropy(["hostile"], NOW) },
        ),
      (e: Error & { kind?: string }) =>
        e.kind === "budget" &&
        /error calling genCA: an RSA key \(a fresh 1024-bit prime\) exceeds the render's work budget \(1000000 steps\)/.test(
          e.message,
        ),
    );
    assert.throws(
      () => renderTemplate(parseTemplate("t", '{{ range until 50 }}{{ genCA "x" 1 }}{{ end }}'), {}, tight),
      /work budget/,
    );
    assert.match(renderTemplate(parseTemplate("t", '{{ (genCA "x" 1).Cert | len }}'), {}), /^\d+$/);
    assert.throws(() => render('{{ genCA "x" 100000000000 }}'), /out of range/);
  });

  it("three RSA-4096 keys, certificates and ECDSA keys fit in one render's default budget", () => {
    // Seed "rsa": the first key's primes are memoised by the test above when run in one process.
    const out = render(
      '{{ range until 3 }}{{ genPrivateKey "rsa" }}{{ end }}{{ range until 3 }}{{ (genCA "ca" 30).Cert }}{{ genPrivateKey "ecdsa" }}{{ end }}',
      "rsa",
    );
    assert.equal(keys(out).length, 6);
    assert.equal(certs(out).length, 3);
  });

  it("refuses DSA with a reason", () => {
    assert.match(render('{{ genPrivateKey "dsa" }}'), /does not generate DSA keys/);
  });
});
