/**
 * Sprig's genPrivateKey and the key handling of its certificate functions (crypto.go), with
 * keys derived from the Entropy port: the same seeded source gives the same key, so a chart's
 * generated key is stable per instance generation. RSA primes are drawn from the stream and
 * tested by OpenSSL (checkPrimeSync); ECDSA P-256 scalars and Ed25519 seeds are stream bytes.
 * PEM blocks are Go's: "RSA PRIVATE KEY" (PKCS#1), "EC PRIVATE KEY" (SEC 1), "PRIVATE KEY" (PKCS#8).
 */
import { checkPrimeSync, createPrivateKey, type KeyObject } from "node:crypto";
import { LRUCache } from "lru-cache";
import { bitString, explicit, integer, octetString, oid, pem, sequence } from "./der.js";
import { uniformInt, type Entropy } from "./entropy.js";
import { chargeWork, WORK_COSTS } from "../go/index.js";

const E = 65537n;
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function randomBits(entropy: Entropy, bits: number): bigint {
  const bytes = new Uint8Array(Math.ceil(bits / 8));
  entropy.read(bytes);
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v >> BigInt(bytes.length * 8 - bits);
}

function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [a % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/**
 * What finding a fresh prime of `bits` bits is charged to the render's work budget (memoised ones
 * are free): Miller–Rabin is cubic in the size and the search linear in it, so (bits/2048)³ of a
 * 2048-bit prime's measured cost. An RSA-4096 key is two 2048-bit primes (~2.4 M steps, so a
 * render's 10 M-step budget holds four of them besides its templates), an RSA-2048 key (genCA,
 * genSelfSignedCert, genSignedCert) two 1024-bit ones (~0.3 M).
 */
export function primeCost(bits: number): number {
  return Math.ceil(WORK_COSTS.rsaPrime2048 * (bits / 2048) ** 3);
}

const SMALL_PRIMES: readonly number[] = (() => {
  const out: number[] = [];
  for (let n = 3; out.length < 2048; n += 2) if (out.every((p) => p * p > n || n % p !== 0)) out.push(n);
  return out;
})();

/**
 * Primes found, by their search's start. The search is a pure function of its start, and a
 * seeded render repeats on every resync: an RSA-4096 key costs seconds of CPU the first time
 * (as Go's rsa.GenerateKey does), then nothing. Bounded, so hostile charts cannot grow it.
 */
const primes = new LRUCache<string, bigint>({ max: 512 });

/**
 * A prime of exactly `bits` bits with its top two bits set (so p·q has 2·bits bits) and
 * gcd(e, p−1) = 1: from one random odd start (one draw from the stream, always), step by 2
 * while a small prime divides the candidate (residues kept as numbers, so the sieve costs no
 * bigint work), then let OpenSSL's Miller–Rabin decide.
 */
function prime(entropy: Entropy, bits: number): bigint {
  const start = randomBits(entropy, bits) | (3n << BigInt(bits - 2)) | 1n;
  const key = `${bits}:${start.toString(36)}`;
  const known = primes.get(key);
  if (known !== undefined) return known;
  chargeWork(primeCost(bits), `an RSA key (a fresh ${bits}-bit prime)`);
  const residues = SMALL_PRIMES.map((p) => Number(start % BigInt(p)));
  // Past 2^bits only if the start lies within a prime gap of it (odds ~2^-2000): not worth a branch.
  for (let delta = 0; ; delta += 2) {
    if (residues.some((r, i) => (r + delta) % (SMALL_PRIMES[i] ?? 1) === 0)) continue;
    const candidate = start + BigInt(delta);
    if (gcd(E, candidate - 1n) === 1n && checkPrimeSync(candidate, { checks: 10 })) {
      primes.set(key, candidate);
      return candidate;
    }
  }
}

/** An RSA key of `bits` bits, PKCS#1 (what x509.MarshalPKCS1PrivateKey writes). */
export function rsaKey(entropy: Entropy, bits: number): KeyObject {
  for (;;) {
    const p = prime(entropy, bits / 2);
    const q = prime(entropy, bits / 2);
    if (p === q) continue;
    const n = p * q;
    const d = modInverse(E, (p - 1n) * (q - 1n));
    const der = sequence(
      integer(0n),
      integer(n),
      integer(E),
      integer(d),
      integer(p),
      integer(q),
      integer(d % (p - 1n)),
      integer(d % (q - 1n)),
      integer(modInverse(q, p)),
    );
    return createPrivateKey({ key: der, format: "der", type: "pkcs1" });
  }
}

export function ecdsaKey(entropy: Entropy): KeyObject {
  const d = uniformInt(entropy, P256_ORDER - 1n) + 1n;
  // SEC 1 ECPrivateKey with the curve and no public key: OpenSSL derives it.
  const scalar = Buffer.from(d.toString(16).padStart(64, "0"), "hex");
  const der = sequence(
    integer(1n),
    Buffer.concat([Buffer.from([0x04, 0x20]), scalar]),
    Buffer.from("a00a06082a8648ce3d030107", "hex"),
  );
  return createPrivateKey({ key: der, format: "der", type: "sec1" });
}

export function ed25519Key(entropy: Entropy): KeyObject {
  const seed = new Uint8Array(32);
  entropy.read(seed);
  return createPrivateKey({
    key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]),
    format: "der",
    type: "pkcs8",
  });
}

const CURVES: Readonly<Record<string, { oid: string; size: number }>> = {
  "P-256": { oid: "1.2.840.10045.3.1.7", size: 32 },
  "P-384": { oid: "1.3.132.0.34", size: 48 },
  "P-521": { oid: "1.3.132.0.35", size: 66 },
};

/** x509.MarshalECPrivateKey: SEC 1 with the curve and the public point (OpenSSL's export may omit the point). */
function sec1(key: KeyObject): Buffer {
  const jwk = key.export({ format: "jwk" });
  const curve = CURVES[jwk.crv ?? ""];
  if (curve === undefined) return key.export({ format: "der", type: "sec1" });
  const b = (s: string | undefined): Buffer => Buffer.from(s ?? "", "base64url");
  const pad = (buf: Buffer): Buffer => Buffer.concat([Buffer.alloc(Math.max(0, curve.size - buf.length)), buf]);
  return sequence(
    integer(1n),
    octetString(pad(b(jwk.d))),
    explicit(0, oid(curve.oid)),
    explicit(1, bitString(Buffer.concat([Buffer.from([4]), pad(b(jwk.x)), pad(b(jwk.y))]))),
  );
}

/** Sprig's pemBlockForKey. */
export function keyPem(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return pem("RSA PRIVATE KEY", key.export({ format: "der", type: "pkcs1" }));
    case "ec":
      return pem("EC PRIVATE KEY", sec1(key));
    default:
      return pem("PRIVATE KEY", key.export({ format: "der", type: "pkcs8" }));
  }
}

/** genPrivateKey's answer: a PEM block, or Sprig's message (it returns errors as the string). */
export function generatePrivateKey(entropy: Entropy, type: string): string {
  switch (type) {
    case "":
    case "rsa":
      return keyPem(rsaKey(entropy, 4096));
    case "ecdsa":
      chargeWork(WORK_COSTS.curveKey, "an ECDSA key");
      return keyPem(ecdsaKey(entropy));
    case "ed25519":
      chargeWork(WORK_COSTS.curveKey, "an Ed25519 key");
      return keyPem(ed25519Key(entropy));
    // Sprig makes DSA keys; OpenSSL 3 and Go both deprecate DSA, and no chart should need one.
    case "dsa":
      return "failed to generate private key: kro-ts does not generate DSA keys (deprecated); use rsa, ecdsa or ed25519";
    default:
      return `Unknown type ${type}`;
  }
}

/** Sprig's parsePrivateKeyPEM, with its error texts. */
export function parsePrivateKeyPem(text: string): KeyObject | string {
  const m = /-----BEGIN ([^\n]+?)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (m === null) return "no PEM data in input";
  const type = m[1] ?? "";
  const der = Buffer.from((m[2] ?? "").replace(/\s+/g, ""), "base64");
  const parse = (format: "pkcs1" | "sec1" | "pkcs8", what: string): KeyObject | string => {
    try {
      return createPrivateKey({ key: der, format: "der", type: format });
    } catch (e) {
      return `${what}: ${e instanceof Error ? e.message : String(e)}`;
    }
  };
  if (type === "PRIVATE KEY") return parse("pkcs8", "decoding PEM as PKCS#8");
  if (!type.endsWith(" PRIVATE KEY")) return `no private key data in PEM block of type ${type}`;
  switch (type.slice(0, -12)) {
    case "RSA":
      return parse("pkcs1", "parsing RSA private key from PEM");
    case "EC":
      return parse("sec1", "parsing EC private key from PEM");
    default:
      return `invalid private key type ${type}`;
  }
}
