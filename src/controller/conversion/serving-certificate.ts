/**
 * The conversion webhook's TLS material: a CA and a serving certificate signed by it, for the
 * names the API server dials (127.0.0.1 for a local cluster, the Service's DNS names in a
 * cluster). Made by the X.509 code behind the template engine's Sprig certificate functions
 * (genCA, genSignedCert: RSA-2048, SHA-256), called directly, so no second X.509 implementation
 * lives in the project.
 */
import { generateKeyPair, X509Certificate, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import { promisify } from "node:util";
import { generateCaAndCertificate, systemEntropy } from "../../template/index.js";

export interface ServingCertificate {
  /** PEM of the CA: what the CRD's caBundle carries (base64 of this text). */
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** When the serving certificate stops being valid. */
  readonly notAfter: Date;
}

const rsaKeyPair = promisify(generateKeyPair);

/**
 * An RSA-2048 private key made by OpenSSL on libuv's thread pool: the controller's thread, which
 * renews its Lease and answers /healthz, never spends the seconds a key costs on a busy machine.
 */
async function rsaKey(): Promise<KeyObject> {
  return (await rsaKeyPair("rsa", { modulusLength: 2048, publicExponent: 0x10001 })).privateKey;
}

/** A fresh CA and serving certificate for `hosts` (IP addresses and DNS names), valid `days` days. */
export async function createServingCertificate(hosts: readonly string[], days = 365): Promise<ServingCertificate> {
  const ips = hosts.filter((h) => isIP(h) !== 0);
  const dns = hosts.filter((h) => isIP(h) === 0);
  const [ca, serving] = await Promise.all([rsaKey(), rsaKey()]);
  const { caPem, certPem, keyPem } = generateCaAndCertificate(
    systemEntropy,
    { caName: "kro-ts conversion webhook CA", cn: dns[0] ?? ips[0] ?? "kro-conversion-webhook", ips, dns, days },
    { ca, serving },
  );
  return { caPem, certPem, keyPem, notAfter: new Date(new X509Certificate(certPem).validTo) };
}

/** Whether `cert` must be replaced: unreadable, not for these hosts, or within a third of its life of expiry. */
export function needsRotation(cert: ServingCertificate, hosts: readonly string[], now: Date): boolean {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert.certPem);
    new X509Certificate(cert.caPem);
  } catch {
    return true;
  }
  const from = new Date(x509.validFrom).getTime();
  const to = new Date(x509.validTo).getTime();
  if (now.getTime() > to - (to - from) / 3) return true;
  return !hosts.every((h) => (isIP(h) !== 0 ? x509.checkIP(h) !== undefined : x509.checkHost(h) !== undefined));
}
