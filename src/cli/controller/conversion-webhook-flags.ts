/**
 * The conversion webhook's flags of `kro controller`: where it listens, where the API server
 * dials it (the bind address, an advertised address, or a Service), and the Secret that shares
 * its certificate between replicas. A bad value is an error naming the flag, before anything starts.
 */

export interface ConversionWebhookFlags {
  readonly conversionWebhookBindAddress?: string;
  readonly conversionWebhookAdvertiseAddress?: string;
  readonly conversionWebhookService?: string;
  readonly conversionWebhookSecret?: string;
}

/** Listen-everywhere hosts: fine to bind, never an address to dial. */
const WILDCARDS = new Set(["0.0.0.0", "::"]);

function namespacedName(flag: string, value: string): { namespace: string; name: string; port?: number } {
  const match = /^([a-z0-9-]+)\/([a-z0-9-]+)(?::([0-9]+))?$/.exec(value);
  if (match === null)
    throw new Error(`${flag} must be namespace/name${flag.endsWith("service") ? "[:port]" : ""}, got "${value}"`);
  const [, namespace = "", name = "", port] = match;
  return { namespace, name, ...(port === undefined ? {} : { port: Number(port) }) };
}

/** host:port (an IPv6 host in brackets); an empty host is `emptyHost`. */
function hostPortFlag(
  flag: string,
  address: string,
  emptyHost: string,
  minPort: number,
): { host: string; port: number } {
  const colon = address.lastIndexOf(":");
  const port = Number(address.slice(colon + 1));
  if (colon < 0 || address.slice(colon + 1) === "" || !Number.isInteger(port) || port < minPort || port > 65535)
    throw new Error(`${flag} must be host:port, got "${address}"`);
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, "$1") || emptyHost, port };
}

export function conversionWebhookFlags(flags: ConversionWebhookFlags): {
  host: string;
  port: number;
  advertise?: { host: string; port: number };
  service?: { namespace: string; name: string; port?: number };
  secret?: { namespace: string; name: string };
} {
  const advertise = flags.conversionWebhookAdvertiseAddress;
  if (advertise !== undefined && flags.conversionWebhookService !== undefined)
    throw new Error(
      "--conversion-webhook-advertise-address and --conversion-webhook-service both say where the API server dials the webhook: give one",
    );
  const advertised =
    advertise === undefined ? undefined : hostPortFlag("--conversion-webhook-advertise-address", advertise, "", 1);
  if (advertised !== undefined && (advertised.host === "" || WILDCARDS.has(advertised.host)))
    throw new Error(
      `--conversion-webhook-advertise-address needs a host the API server can dial, got "${advertise ?? ""}"`,
    );
  const bind = hostPortFlag(
    "--conversion-webhook-bind-address",
    flags.conversionWebhookBindAddress ?? "127.0.0.1:0",
    "0.0.0.0",
    0,
  );
  // Without a Service or an advertised address the API server dials the bind address itself.
  if (advertised === undefined && flags.conversionWebhookService === undefined && WILDCARDS.has(bind.host)) {
    throw new Error(
      `--conversion-webhook-bind-address ${flags.conversionWebhookBindAddress ?? ""} listens on every interface, which the API server cannot dial: add --conversion-webhook-advertise-address or --conversion-webhook-service`,
    );
  }
  return {
    ...bind,
    ...(advertised === undefined ? {} : { advertise: advertised }),
    ...(flags.conversionWebhookService === undefined
      ? {}
      : { service: namespacedName("--conversion-webhook-service", flags.conversionWebhookService) }),
    ...(flags.conversionWebhookSecret === undefined
      ? {}
      : { secret: namespacedName("--conversion-webhook-secret", flags.conversionWebhookSecret) }),
  };
}
