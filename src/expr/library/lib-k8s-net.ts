/**
 * Kubernetes IP and CIDR libraries (`ip("10.0.0.1")`, `cidr("10.0.0.0/8")`). Like apimachinery they
 * reject IPv4-mapped IPv6 addresses and zones. Addresses are held as BigInt plus family.
 */
import { isIPv4, isIPv6 } from "node:net";
import { LibraryError, declareNamespace, type CelEnvironment } from "../lib-support.js";

export class IPAddress {
  constructor(
    readonly family: 4 | 6,
    readonly value: bigint,
  ) {}
  get bits(): number {
    return this.family === 4 ? 32 : 128;
  }
  toString(): string {
    if (this.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((this.value >> s) & 255n)).join(".");
    const groups = Array.from({ length: 8 }, (_, i) => Number((this.value >> BigInt(112 - 16 * i)) & 0xffffn));
    // RFC 5952: compress the longest run (≥2) of zero groups.
    let best = -1,
      bestLen = 1;
    for (let i = 0; i < 8;) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) {
        best = i;
        bestLen = j - i;
      }
      i = j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best < 0) return hex.join(":");
    return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
  }
}

export class CIDR {
  constructor(
    readonly ip: IPAddress,
    readonly prefix: number,
  ) {}
  get mask(): bigint {
    const host = BigInt(this.ip.bits - this.prefix);
    return ((1n << BigInt(this.ip.bits)) - 1n) ^ ((1n << host) - 1n);
  }
  contains(a: IPAddress): boolean {
    return a.family === this.ip.family && (a.value & this.mask) === (this.ip.value & this.mask);
  }
  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

export function parseIP(s: string): IPAddress | undefined {
  if (isIPv4(s)) {
    // Go's netip rejects leading zeros ("010.0.0.1").
    if (s.split(".").some((p) => p.length > 1 && p.startsWith("0"))) return undefined;
    return new IPAddress(
      4,
      s.split(".").reduce((acc, p) => (acc << 8n) | BigInt(p), 0n),
    );
  }
  if (!isIPv6(s) || s.includes("%") || s.includes(".")) return undefined; // no zones, no IPv4-mapped forms
  const [head = "", tail] = s.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return new IPAddress(
    6,
    groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n),
  );
}

export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.lastIndexOf("/");
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const prefixText = s.slice(slash + 1);
  if (ip === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix > ip.bits ? undefined : new CIDR(ip, prefix);
}

const fail = (what: string, s: string): never => {
  throw new LibraryError("invalid_argument", `${what} parse error during conversion from string: ${JSON.stringify(s)}`);
};

export function registerNetLibraries(env: CelEnvironment): void {
  env.registerType("net.IP", IPAddress);
  env.registerType("net.CIDR", CIDR);
  env.registerFunction("isIP(string): bool", (s: string) => parseIP(s) !== undefined);
  env.registerFunction("ip(string): net.IP", (s: string) => parseIP(s) ?? fail("IP Address", s));
  const ipNamespace = declareNamespace(env, "ip");
  env.registerFunction(`${ipNamespace}.isCanonical(string): bool`, (_ns: unknown, s: string) => {
    const a = parseIP(s) ?? fail("IP Address", s);
    return a.toString() === s;
  });
  env.registerFunction("string(net.IP): string", (a: IPAddress) => a.toString());
  env.registerFunction("net.IP.family(): int", (a: IPAddress) => BigInt(a.family));
  env.registerFunction("net.IP.isUnspecified(): bool", (a: IPAddress) => a.value === 0n);
  env.registerFunction("net.IP.isLoopback(): bool", (a: IPAddress) =>
    a.family === 4 ? a.value >> 24n === 127n : a.value === 1n,
  );
  env.registerFunction("net.IP.isLinkLocalMulticast(): bool", (a: IPAddress) =>
    a.family === 4 ? a.value >> 8n === 0xe00000n : a.value >> 112n === 0xff02n,
  );
  env.registerFunction("net.IP.isLinkLocalUnicast(): bool", (a: IPAddress) =>
    a.family === 4 ? a.value >> 16n === 0xa9fen : a.value >> 118n === 0x3fan,
  );
  env.registerFunction("net.IP.isGlobalUnicast(): bool", (a: IPAddress) => {
    if (a.value === 0n) return false;
    if (a.family === 4)
      return (
        a.value !== 0xffffffffn && a.value >> 24n !== 127n && a.value >> 28n !== 0xen && a.value >> 16n !== 0xa9fen
      );
    return a.value !== 1n && a.value >> 120n !== 0xffn && a.value >> 118n !== 0x3fan;
  });
  env.registerOperator(
    "net.IP == net.IP",
    (a: IPAddress, b: IPAddress) => a.family === b.family && a.value === b.value,
  );

  env.registerFunction("isCIDR(string): bool", (s: string) => parseCIDR(s) !== undefined);
  env.registerFunction("cidr(string): net.CIDR", (s: string) => parseCIDR(s) ?? fail("network address", s));
  env.registerFunction("string(net.CIDR): string", (c: CIDR) => c.toString());
  env.registerFunction("net.CIDR.containsIP(net.IP): bool", (c: CIDR, a: IPAddress) => c.contains(a));
  env.registerFunction("net.CIDR.containsIP(string): bool", (c: CIDR, s: string) =>
    c.contains(parseIP(s) ?? fail("IP Address", s)),
  );
  const containsCidr = (c: CIDR, o: CIDR): boolean => o.prefix >= c.prefix && c.contains(o.ip);
  env.registerFunction("net.CIDR.containsCIDR(net.CIDR): bool", containsCidr);
  env.registerFunction("net.CIDR.containsCIDR(string): bool", (c: CIDR, s: string) =>
    containsCidr(c, parseCIDR(s) ?? fail("network address", s)),
  );
  env.registerFunction("net.CIDR.ip(): net.IP", (c: CIDR) => c.ip);
  env.registerFunction(
    "net.CIDR.masked(): net.CIDR",
    (c: CIDR) => new CIDR(new IPAddress(c.ip.family, c.ip.value & c.mask), c.prefix),
  );
  env.registerFunction("net.CIDR.prefixLength(): int", (c: CIDR) => BigInt(c.prefix));
  env.registerOperator("net.CIDR == net.CIDR", (a: CIDR, b: CIDR) => a.toString() === b.toString());
}
