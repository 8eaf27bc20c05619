/**
 * The few ASN.1 DER encodings X.509 certificates and PKCS#1 keys need (X.690): definite lengths,
 * minimal two's-complement integers, and Go's choices where DER leaves one (PrintableString when
 * every character allows it, else UTF8String; UTCTime for 1950–2049, else GeneralizedTime).
 */
const concat = (parts: readonly Uint8Array[]): Buffer => Buffer.concat(parts);

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export const tlv = (tag: number, body: Uint8Array): Buffer => concat([Buffer.from([tag]), length(body.length), body]);
export const sequence = (...items: readonly Uint8Array[]): Buffer => tlv(0x30, concat(items));
export const set = (...items: readonly Uint8Array[]): Buffer => tlv(0x31, concat(items));
/** [n] EXPLICIT: a constructed context tag around one encoding. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);
export const octetString = (b: Uint8Array): Buffer => tlv(0x04, b);
export const bitString = (b: Uint8Array, unusedBits = 0): Buffer => tlv(0x03, concat([Buffer.from([unusedBits]), b]));
export const boolean = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
export const nullValue = (): Buffer => Buffer.from([0x05, 0x00]);

/** A non-negative INTEGER (with the leading zero byte a set high bit needs). */
export function integer(v: bigint): Buffer {
  if (v < 0n) throw new RangeError("negative INTEGER");
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const bytes = Buffer.from(hex, "hex");
  return tlv(0x02, (bytes[0] ?? 0) & 0x80 ? concat([Buffer.from([0]), bytes]) : bytes);
}

export function oid(dotted: string): Buffer {
  const arcs = dotted.split(".").map((a) => BigInt(a));
  const out: number[] = [];
  const push = (v: bigint): void => {
    const chunk: number[] = [Number(v & 0x7fn)];
    for (let r = v >> 7n; r > 0n; r >>= 7n) chunk.unshift(Number(r & 0x7fn) | 0x80);
    out.push(...chunk);
  };
  push((arcs[0] ?? 0n) * 40n + (arcs[1] ?? 0n));
  for (const arc of arcs.slice(2)) push(arc);
  return tlv(0x06, Buffer.from(out));
}

/** Go's asn1 isPrintable (with '*' and '&', which Go lets through for compatibility). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/;
export const directoryString = (s: string): Buffer => tlv(PRINTABLE.test(s) ? 0x13 : 0x0c, Buffer.from(s, "utf8"));
export const ia5String = (s: string): Buffer => tlv(0x16, Buffer.from(s, "latin1"));

/** Time at second precision, as Go's asn1 marshals a time.Time in a certificate. */
export function time(unixSeconds: bigint): Buffer {
  const d = new Date(Number(unixSeconds) * 1000);
  const year = d.getUTCFullYear();
  const two = (n: number): string => String(n).padStart(2, "0");
  const rest = `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(`${two(year % 100)}${rest}`, "latin1"));
  return tlv(0x18, Buffer.from(`${String(year).padStart(4, "0")}${rest}`, "latin1"));
}

/** PEM armour with 64-column lines, as Go's pem.Encode writes it. */
export function pem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join("")}-----END ${type}-----\n`;
}
