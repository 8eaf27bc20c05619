/**
 * Where the webhook's CA and serving certificate live. In memory for one process (a local
 * cluster, tests); in a Secret when several replicas serve the webhook: the first replica makes
 * them, the others read them, and a rotation keeps the previous CA in the bundle so that a
 * replica still serving the old certificate stays trusted until it reloads.
 */
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import { createServingCertificate, needsRotation, type ServingCertificate } from "./serving-certificate.js";

export interface CertificateStore {
  /** The current certificate for `hosts`, made or rotated when needed. */
  current(hosts: readonly string[], now: Date): Promise<ServingCertificate>;
}

export function memoryCertificateStore(): CertificateStore {
  let cert: ServingCertificate | undefined;
  // One certificate in the making at a time: callers meanwhile share it.
  let making: Promise<ServingCertificate> | undefined;
  return {
    current(hosts, now) {
      if (cert !== undefined && !needsRotation(cert, hosts, now)) return Promise.resolve(cert);
      making ??= (async () => {
        const previous = cert;
        const next = await createServingCertificate(hosts);
        cert = previous === undefined ? next : { ...next, caPem: `${next.caPem}${firstCertificate(previous.caPem)}` };
        return cert;
      })().finally(() => {
        making = undefined;
      });
      return making;
    },
  };
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: unknown) => (typeof s === "string" ? Buffer.from(s, "base64").toString("utf8") : "");
const firstCertificate = (bundle: string) =>
  /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/.exec(bundle)?.[0] ?? "";

export function secretCertificateStore(
  client: KubeClient,
  ref: { readonly namespace: string; readonly name: string },
): CertificateStore {
  const secretRef = { apiVersion: "v1", kind: "Secret", namespace: ref.namespace, name: ref.name };
  const read = (secret: KubeObject): ServingCertificate => {
    const data = (secret as { data?: Record<string, string> }).data ?? {};
    return {
      caPem: unb64(data["ca.crt"]),
      certPem: unb64(data["tls.crt"]),
      keyPem: unb64(data["tls.key"]),
      notAfter: new Date(0),
    };
  };
  return {
    async current(hosts, now) {
      for (let attempt = 0; ; attempt++) {
        let live: KubeObject | undefined;
        try {
          live = await client.get(secretRef);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        const existing = live === undefined ? undefined : read(live);
        if (existing !== undefined && !needsRotation(existing, hosts, now)) return existing;
        const made = await createServingCertificate(hosts);
        const cert =
          existing === undefined ? made : { ...made, caPem: `${made.caPem}${firstCertificate(existing.caPem)}` };
        const data = { "ca.crt": b64(cert.caPem), "tls.crt": b64(cert.certPem), "tls.key": b64(cert.keyPem) };
        try {
          if (live === undefined)
            await client.create(
              {
                apiVersion: "v1",
                kind: "Secret",
                metadata: { namespace: ref.namespace, name: ref.name },
                type: "kubernetes.io/tls",
                data,
              },
              { fieldManager: "kro.run/controller" },
            );
          else await client.replace({ ...live, data }, { fieldManager: "kro.run/controller" });
          return cert;
        } catch (error) {
          // Another replica wrote first: use what it made.
          if (attempt < 3 && (isAlreadyExists(error) || isConflict(error))) continue;
          throw error;
        }
      }
    },
  };
}
