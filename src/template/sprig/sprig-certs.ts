/**
 * Sprig's certificate functions (crypto.go): genCA, genSelfSignedCert, genSignedCert (RSA-2048
 * keys), their …WithKey variants (a PEM key from genPrivateKey or elsewhere), and
 * buildCustomCert. The X.509 layout is what Go's x509.CreateCertificate makes of Sprig's
 * template: v3, a random 128-bit serial, CN-only names, validity now … now+days, key usage
 * (critical), server+client auth, basic constraints (critical), a SHA-1 subject key id on CAs,
 * the CA's key id as authority key id, DNS names then IPs as SANs. Serial, keys and `now` come
 * from the Entropy port; RSA and Ed25519 signatures are deterministic, so a seeded render
 * gives the same certificate every time. ECDSA signatures (only with an ECDSA …WithKey key)
 * use OpenSSL's random nonce (Node offers no RFC 6979): they are memoised per (key, content),
 * so such a certificate is stable while the process lives and changes once after a restart.
 */
import { createHash, createPublicKey, sign, X509Certificate, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import { LRUCache } from "lru-cache";
import {
  bitString,
  boolean,
  directoryString,
  explicit,
  ia5String,
  integer,
  nullValue,
  octetString,
  oid,
  pem,
  sequence,
  set,
  time,
  tlv,
} from "./der.js";
import { uniformInt, type Entropy } from "./entropy.js";
import { FuncError, goFunc, GoObject, sprint, type FuncMap } from "../go/index.js";
import { goBase64Decode } from "./sprig-secrets.js";
import { generatePrivateKey, keyPem, parsePrivateKeyPem, rsaKey } from "./sprig-keys.js";

const CERT_TYPE = "sprig.certificate";
type GoIntArg = { value: bigint };

export function certificateObject(cert: string, key: string): GoObject {
  return new GoObject({
    typeName: CERT_TYPE,
    kind: "struct",
    fields: { Cert: cert, Key: key },
    json: () => ({ Cert: cert, Key: key }),
  });
}

function certificateOf(v: unknown): { Cert: string; Key: string } {
  if (v instanceof GoObject && v.typeName === CERT_TYPE) {
    const f = v.underlying as { Cert: string; Key: string };
    return f;
  }
  throw new FuncError(
    `wrong type for value; expected sprig.certificate; got ${v === null || v === undefined ? "<nil>" : v instanceof GoObject ? v.typeName : typeof v}`,
  );
}

const name = (cn: string): Buffer =>
  cn === "" ? sequence() : sequence(set(sequence(oid("2.5.4.3"), directoryString(cn))));

function signatureAlgorithm(key: KeyObject): { der: Buffer; hash: string | null } {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return { der: sequence(oid("1.2.840.113549.1.1.11"), nullValue()), hash: "sha256" };
    case "ed25519":
      return { der: sequence(oid("1.3.101.112")), hash: null };
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === "secp384r1") return { der: sequence(oid("1.2.840.10045.4.3.3")), hash: "sha384" };
      if (curve === "secp521r1") return { der: sequence(oid("1.2.840.10045.4.3.4")), hash: "sha512" };
      return { der: sequence(oid("1.2.840.10045.4.3.2")), hash: "sha256" };
    }
    default:
      throw new FuncError(
        `error creating certificate: x509: unsupported key type ${key.asymmetricKeyType ?? "unknown"}`,
      );
  }
}

/** The BIT STRING contents of a SubjectPublicKeyInfo (what Go hashes for a subject key id). */
function publicKeyBits(spki: Buffer): Buffer {
  // SPKI = SEQUENCE { AlgorithmIdentifier, BIT STRING }: skip the outer header and the algorithm.
  let i = 1;
  i += (spki[i] ?? 0) & 0x80 ? 1 + ((spki[i] ?? 0) & 0x7f) : 1;
  const algLenByte = spki[i + 1] ?? 0;
  const algHeader = algLenByte & 0x80 ? 2 + (algLenByte & 0x7f) : 2;
  const algLen = algLenByte & 0x80 ? spki.subarray(i + 2, i + algHeader).reduce((a, b) => a * 256 + b, 0) : algLenByte;
  i += algHeader + algLen;
  const bitLenByte = spki[i + 1] ?? 0;
  const bitHeader = bitLenByte & 0x80 ? 2 + (bitLenByte & 0x7f) : 2;
  return spki.subarray(i + bitHeader + 1);
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  const [head = "", tail = ""] = ip.split("::");
  const parse = (s: string): number[] =>
    s === ""
      ? []
      : s
          .split(":")
          .flatMap((g) =>
            g.includes(".")
              ? [...Buffer.from(g.split(".").map(Number))].reduce<number[]>(
                  (acc, b, i) =>
                    i % 2 === 0 ? [...acc, b << 8] : [...acc.slice(0, -1), (acc[acc.length - 1] ?? 0) | b],
                  [],
                )
              : [parseInt(g, 16)],
          );
  const h = parse(head);
  const t = parse(tail);
  const groups = ip.includes("::") ? [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  // Go writes an IPv4-mapped address as its 4 bytes (To4).
  return out.subarray(0, 12).equals(Buffer.from("00000000000000000000ffff", "hex")) ? out.subarray(12) : out;
}

interface Template {
  readonly cn: string;
  readonly ips: readonly string[];
  readonly dns: readonly string[];
  readonly days: bigint;
  readonly isCA: boolean;
}

function stringList(v: unknown, what: (x: string) => string): string[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw new FuncError(`wrong type for value; expected []interface {}; got ${typeof v}`);
  return v.map((e) => {
    if (typeof e !== "string") throw new FuncError(what(sprint([e])));
    return e;
  });
}

function baseTemplate(cn: string, ips: unknown, dns: unknown, days: bigint, isCA = false): Template {
  const ipList = stringList(ips, (e) => `error parsing ip: ${e} is not a string`);
  for (const ip of ipList) if (isIP(ip) === 0) throw new FuncError(`error parsing ip: ${ip}`);
  return {
    cn,
    ips: ipList,
    dns: stringList(dns, (e) => `error processing alternate dns name: ${e} is not a string`),
    days,
    isCA,
  };
}

function keyUsage(isCA: boolean): Buffer {
  // Go's bit order: digitalSignature(0) keyEncipherment(2) certSign(5), minimal length.
  return isCA ? bitString(Buffer.from([0xa4]), 2) : bitString(Buffer.from([0xa0]), 5);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

/** x509.CreateCertificate for Sprig's template: the PEM certificate. */
function createCertificate(
  entropy: Entropy,
  t: Template,
  subjectKey: KeyObject,
  issuer: { name: Buffer; key: KeyObject; keyId: Buffer | undefined },
): string {
  const spki = createPublicKey(subjectKey).export({ format: "der", type: "spki" });
  const alg = signatureAlgorithm(issuer.key);
  const serial = uniformInt(entropy, 1n << 128n);
  const nowSeconds = entropy.now() / 1_000_000_000n;
  // Go's time.Duration overflows past ~292 years; refuse what no date can hold.
  if (t.days < -3_650_000n || t.days > 3_650_000n)
    throw new FuncError(`error creating certificate: ${t.days} days of validity is out of range`);
  const subject = name(t.cn);
  const selfIssued = issuer.name.equals(subject);
  const subjectKeyId = t.isCA ? createHash("sha1").update(publicKeyBits(spki)).digest() : undefined;
  const extensions = [
    extension("2.5.29.15", true, keyUsage(t.isCA)),
    extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"), oid("1.3.6.1.5.5.7.3.2"))),
    extension("2.5.29.19", true, t.isCA ? sequence(boolean(true)) : sequence()),
    ...(subjectKeyId === undefined ? [] : [extension("2.5.29.14", false, octetString(subjectKeyId))]),
    ...(!selfIssued && issuer.keyId !== undefined
      ? [extension("2.5.29.35", false, sequence(tlv(0x80, issuer.keyId)))]
      : []),
    ...(t.dns.length + t.ips.length === 0
      ? []
      : [
          extension(
            "2.5.29.17",
            false,
            sequence(...t.dns.map((d) => ia5String(d).fill(0x82, 0, 1)), ...t.ips.map((ip) => tlv(0x87, ipBytes(ip)))),
          ),
        ]),
  ];
  const tbs = sequence(
    explicit(0, integer(2n)),
    integer(serial),
    alg.der,
    issuer.name,
    sequence(time(nowSeconds), time(nowSeconds + t.days * 86_400n)),
    subject,
    spki,
    explicit(3, sequence(...extensions)),
  );
  const signature = signOnce(alg.hash, tbs, issuer.key);
  return pem("CERTIFICATE", sequence(tbs, alg.der, bitString(signature)));
}

/** ECDSA signatures by (key, signed bytes); the others are deterministic and not kept. */
const ecdsaSignatures = new LRUCache<string, Buffer>({ max: 256 });

function signOnce(hash: string | null, tbs: Buffer, key: KeyObject): Buffer {
  if (key.asymmetricKeyType !== "ec") return sign(hash, tbs, key);
  const id = createHash("sha256")
    .update(key.export({ format: "der", type: "pkcs8" }))
    .update(tbs)
    .digest("hex");
  let signature = ecdsaSignatures.get(id);
  if (signature === undefined) {
    signature = sign(hash, tbs, key);
    ecdsaSignatures.set(id, signature);
  }
  return signature;
}

function selfSigned(entropy: Entropy, t: Template, key: KeyObject): GoObject {
  const cert = createCertificate(entropy, t, key, { name: name(t.cn), key, keyId: undefined });
  return certificateObject(cert, keyPem(key));
}

function parsedKey(text: string, context = "parsing private key"): KeyObject {
  const key = parsePrivateKeyPem(text);
  if (typeof key === "string") throw new FuncError(`${context}: ${key}`);
  return key;
}

function signed(entropy: Entropy, t: Template, ca: unknown, key: () => KeyObject): GoObject {
  const { Cert, Key } = certificateOf(ca);
  const block = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(Cert);
  if (block === null) throw new FuncError("unable to decode certificate");
  let parent: X509Certificate;
  try {
    parent = new X509Certificate(block[0]);
  } catch (e) {
    throw new FuncError(
      `error parsing certificate: decodedSignerCert.Bytes: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const signerKey = parsedKey(Key, "error parsing private key");
  const subjectKey = key();
  const cert = createCertificate(entropy, t, subjectKey, {
    name: subjectNameDer(Buffer.from(parent.raw)),
    key: signerKey,
    keyId: subjectKeyIdOf(parent),
  });
  return certificateObject(cert, keyPem(subjectKey));
}

/** Walks a DER certificate to its subject Name (tbs fields: [0] version, serial, alg, issuer, validity, subject). */
function subjectNameDer(certDer: Buffer): Buffer {
  const header = (b: Buffer, at: number): { start: number; end: number } => {
    const l = b[at + 1] ?? 0;
    const n = l & 0x80 ? l & 0x7f : 0;
    const len = n === 0 ? l : b.subarray(at + 2, at + 2 + n).reduce((a, x) => a * 256 + x, 0);
    return { start: at + 2 + n, end: at + 2 + n + len };
  };
  const tbs = header(certDer, header(certDer, 0).start);
  let at = tbs.start;
  if (certDer[at] === 0xa0) at = header(certDer, at).end;
  for (let i = 0; i < 4; i++) at = header(certDer, at).end; // serial, signature, issuer, validity
  return certDer.subarray(at, header(certDer, at).end);
}

function subjectKeyIdOf(cert: X509Certificate): Buffer | undefined {
  // Node exposes no extensions: find the subjectKeyIdentifier OID's OCTET STRING in the DER.
  const der = Buffer.from(cert.raw);
  const marker = Buffer.from("0603551d0e", "hex");
  const i = der.indexOf(marker);
  if (i < 0) return undefined;
  let at = i + marker.length;
  if (der[at] === 0x01) at += 3; // critical BOOLEAN
  // OCTET STRING { OCTET STRING keyId }
  const inner = at + 2;
  const len = der[inner + 1] ?? 0;
  return der.subarray(inner + 2, inner + 2 + len);
}

/**
 * What genCA followed by genSignedCert make, for a caller that is not a template (the controller's
 * conversion webhook): a fresh RSA-2048 CA and a serving certificate it signs, as PEM. `keys`: RSA
 * keys made elsewhere (the controller makes them off its thread; drawing them from `entropy` costs
 * seconds of JavaScript).
 */
export function generateCaAndCertificate(
  entropy: Entropy,
  request: {
    readonly cn: string;
    readonly ips: readonly string[];
    readonly dns: readonly string[];
    readonly days: number;
    readonly caName: string;
  },
  keys?: { readonly ca: KeyObject; readonly serving: KeyObject },
): { caPem: string; certPem: string; keyPem: string } {
  const days = BigInt(request.days);
  const caKey = keys?.ca ?? rsaKey(entropy, 2048);
  const caTemplate = baseTemplate(request.caName, null, null, days, true);
  const caPem = createCertificate(entropy, caTemplate, caKey, {
    name: name(caTemplate.cn),
    key: caKey,
    keyId: undefined,
  });
  const serving = signed(
    entropy,
    baseTemplate(request.cn, [...request.ips], [...request.dns], days),
    certificateObject(caPem, keyPem(caKey)),
    () => keys?.serving ?? rsaKey(entropy, 2048),
  );
  const { Cert, Key } = certificateOf(serving);
  return { caPem, certPem: Cert, keyPem: Key };
}

export function certFuncs(entropy: Entropy): FuncMap {
  return {
    genPrivateKey: goFunc(["string"], (type: string) => generatePrivateKey(entropy, type)),
    genCA: goFunc(["string", "int"], (cn: string, days: GoIntArg) =>
      selfSigned(entropy, baseTemplate(cn, null, null, days.value, true), rsaKey(entropy, 2048)),
    ),
    genCAWithKey: goFunc(["string", "int", "string"], (cn: string, days: GoIntArg, key: string) =>
      selfSigned(entropy, baseTemplate(cn, null, null, days.value, true), parsedKey(key)),
    ),
    genSelfSignedCert: goFunc(
      ["string", "any", "any", "int"],
      (cn: string, ips: unknown, dns: unknown, days: GoIntArg) => {
        const t = baseTemplate(cn, ips, dns, days.value);
        return selfSigned(entropy, t, rsaKey(entropy, 2048));
      },
    ),
    genSelfSignedCertWithKey: goFunc(
      ["string", "any", "any", "int", "string"],
      (cn: string, ips: unknown, dns: unknown, days: GoIntArg, key: string) =>
        selfSigned(entropy, baseTemplate(cn, ips, dns, days.value), parsedKey(key)),
    ),
    genSignedCert: goFunc(
      ["string", "any", "any", "int", "any"],
      (cn: string, ips: unknown, dns: unknown, days: GoIntArg, ca: unknown) => {
        const t = baseTemplate(cn, ips, dns, days.value);
        return signed(entropy, t, ca, () => rsaKey(entropy, 2048));
      },
    ),
    genSignedCertWithKey: goFunc(
      ["string", "any", "any", "int", "any", "string"],
      (cn: string, ips: unknown, dns: unknown, days: GoIntArg, ca: unknown, key: string) =>
        signed(entropy, baseTemplate(cn, ips, dns, days.value), ca, () => parsedKey(key)),
    ),
  };
}

/** buildCustomCert: base64 PEM certificate and key, checked, as a certificate value. */
export const buildCustomCert = goFunc(["string", "string"], (b64cert: string, b64key: string) => {
  const cert = goBase64Decode(b64cert);
  if (typeof cert === "string") throw new FuncError("unable to decode base64 certificate");
  const key = goBase64Decode(b64key);
  if (typeof key === "string") throw new FuncError("unable to decode base64 private key");
  const block = /-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/.exec(cert.toString("latin1"));
  if (block === null) throw new FuncError("unable to decode certificate");
  try {
    new X509Certificate(block[0]);
  } catch (e) {
    throw new FuncError(`error parsing certificate: decodedCert.Bytes: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = parsePrivateKeyPem(key.toString("utf8"));
  if (typeof parsed === "string") throw new FuncError(`error parsing private key: ${parsed}`);
  return certificateObject(cert.toString("utf8"), key.toString("utf8"));
});
