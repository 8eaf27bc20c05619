/**
 * Helm golden cases for Sprig's keys and certificates. Keys, serials and signatures are random,
 * so the cases record what is not: shapes, error texts, and crossings — Helm signs with a CA
 * and keys kro-ts made (helm-golden-crossover.ts), and kro-ts signs with Helm's.
 */
import { crossover as x } from "./helm-golden-crossover.js";
import { helmCase, type HelmCase } from "./helm-golden-support.js";

const PEM_CERT = "-----BEGIN CERTIFICATE-----";
const ok = (v: string): string => `{{ hasPrefix "${PEM_CERT}" ${v} }}`;

const shapes: string[] = [
  `{{ $ca := genCA "my-ca" 365 }}${ok("$ca.Cert")} {{ hasPrefix "-----BEGIN RSA PRIVATE KEY-----" $ca.Key }} {{ hasSuffix "-----END CERTIFICATE-----\\n" $ca.Cert }}`,
  `{{ $ca := genCA "ca" 1 }}{{ $c := genSignedCert "svc" (list "10.0.0.1" "::1") (list "a.example") 30 $ca }}${ok("$c.Cert")} {{ hasPrefix "-----BEGIN RSA PRIVATE KEY-----" $c.Key }}`,
  `{{ $c := genSelfSignedCert "x" nil nil 1 }}${ok("$c.Cert")} {{ $c.Key | trunc 31 }}`,
  `{{ genPrivateKey "ecdsa" | trunc 30 }}|{{ genPrivateKey "ed25519" | trunc 27 }}|{{ genPrivateKey "ed25519" | len }}|{{ genPrivateKey "ecdsa" | len }}|{{ genPrivateKey "bogus" }}`,
  `{{ $k := genPrivateKey "ecdsa" }}{{ $c := genSelfSignedCertWithKey "ec" (list "127.0.0.1") (list "ec.local") 2 $k }}${ok("$c.Cert")} {{ eq $c.Key $k }}`,
  `{{ $k := genPrivateKey "ed25519" }}{{ $ca := genCAWithKey "ed-ca" 2 $k }}{{ $c := genSignedCertWithKey "leaf" nil nil 2 $ca $k }}${ok("$c.Cert")} {{ eq $ca.Key $k }}`,
  `{{ genCAWithKey "x" 1 "not a key" }}`, `{{ genCAWithKey "x" 1 "-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n" }}`,
  `{{ genCAWithKey "x" 1 "-----BEGIN DSA-ISH PRIVATE KEY-----\\nAAAA\\n-----END DSA-ISH PRIVATE KEY-----\\n" }}`,
  `{{ genSelfSignedCert "x" (list "nope") nil 1 }}`, `{{ genSelfSignedCert "x" (list 1) nil 1 }}`, `{{ genSelfSignedCert "x" nil (list 2) 1 }}`,
  `{{ buildCustomCert "!!" "x" }}`, `{{ buildCustomCert "${Buffer.from("no pem").toString("base64")}" "" }}`,
];

const crossings: string[] = [
  // Helm signs with kro-ts's CA, and with kro-ts's keys.
  `{{ $ca := buildCustomCert "${x.KRO_CA_CERT}" "${x.KRO_CA_KEY}" }}{{ $c := genSignedCert "svc" nil (list "a") 1 $ca }}${ok("$c.Cert")} {{ $ca.Cert | sha256sum }}`,
  `{{ $ca := buildCustomCert "${x.KRO_CA_CERT}" "${x.KRO_CA_KEY}" }}{{ $c := genSignedCertWithKey "svc" nil nil 1 $ca ("${x.KRO_EC_KEY}" | b64dec) }}${ok("$c.Cert")}`,
  `{{ $c := genCAWithKey "ed" 1 ("${x.KRO_ED_KEY}" | b64dec) }}${ok("$c.Cert")} {{ eq $c.Key ("${x.KRO_ED_KEY}" | b64dec) }}`,
  // kro-ts signs with Helm's CA and key.
  `{{ $ca := buildCustomCert "${x.HELM_CA_CERT}" "${x.HELM_CA_KEY}" }}{{ $c := genSignedCert "svc" (list "10.1.2.3") nil 1 $ca }}${ok("$c.Cert")} {{ $ca.Key | sha256sum }}`,
  `{{ $c := genSelfSignedCertWithKey "x" nil nil 1 ("${x.HELM_EC_KEY}" | b64dec) }}${ok("$c.Cert")} {{ eq $c.Key ("${x.HELM_EC_KEY}" | b64dec) }}`,
];

export const certCases: HelmCase[] = [...shapes, ...crossings].map((t) => helmCase(t));
