/**
 * Where a template's random and time functions draw from: Sprig's crypto/rand and time.Now as a
 * port. `systemEntropy` is what Sprig does (new values on every render); `seededEntropy` is a
 * deterministic stream (AES-256-CTR keyed by a hash of the seed) with a fixed clock, so the
 * controller can render an instance's chart to the same bytes on every resync and after a
 * restart, and re-roll only when the seed (instance UID, generation) changes — as Helm renders
 * once per install/upgrade. `fork(label)` gives each template file its own stream, so one file's
 * draws do not shift another's when a chart gains a template.
 */
import { createCipheriv, createHash, randomFillSync } from "node:crypto";

export interface Entropy {
  /** Fills `out` with random bytes. */
  readonly read: (out: Uint8Array) => void;
  /** The clock `now` (and certificate validity) reads: Unix time in nanoseconds. */
  readonly now: () => bigint;
  /** An independent stream for one template (a seeded source derives it; the system one returns itself). */
  readonly fork: (label: string) => Entropy;
  /** Whether two renders with equal seeds give equal output (false: the system source). */
  readonly deterministic: boolean;
}

export const systemEntropy: Entropy = {
  read: (out) => {
    randomFillSync(out);
  },
  now: () => BigInt(Date.now()) * 1_000_000n,
  fork: () => systemEntropy,
  deterministic: false,
};

const DOMAIN = "kro-ts template entropy v1";

function keyOf(parts: readonly string[]): Buffer {
  const h = createHash("sha256").update(DOMAIN);
  // Length-prefixed, so ("ab","c") and ("a","bc") are different seeds.
  for (const p of parts) h.update(`${Buffer.byteLength(p)}:`).update(p);
  return h.digest();
}

function streamOf(key: Buffer, nowNs: bigint): Entropy {
  const cipher = createCipheriv("aes-256-ctr", key, Buffer.alloc(16));
  return {
    read: (out) => {
      out.set(cipher.update(Buffer.alloc(out.length)));
    },
    now: () => nowNs,
    fork: (label) => streamOf(keyOf([key.toString("hex"), label]), nowNs),
    deterministic: true,
  };
}

/** A deterministic source: the same seed parts and instant give the same bytes, every time. */
export function seededEntropy(seed: readonly string[], nowNs: bigint): Entropy {
  return streamOf(keyOf(seed), nowNs);
}

/** A uniform integer in [0, n) (n ≥ 1), by rejection so no value is favoured. */
export function uniformInt(entropy: Entropy, n: bigint): bigint {
  if (n <= 1n) return 0n;
  const bits = (n - 1n).toString(2).length;
  const bytes = Math.ceil(bits / 8);
  const mask = (1n << BigInt(bits)) - 1n;
  const buf = new Uint8Array(bytes);
  for (;;) {
    entropy.read(buf);
    let v = 0n;
    for (const b of buf) v = (v << 8n) | BigInt(b);
    v &= mask;
    if (v < n) return v;
  }
}

/** A uniform index in [0, n) for small n. */
export const uniformIndex = (entropy: Entropy, n: number): number => Number(uniformInt(entropy, BigInt(n)));

/** A version-4 UUID from 16 random bytes (RFC 9562 §5.4). */
export function uuidV4(entropy: Entropy): string {
  const b = new Uint8Array(16);
  entropy.read(b);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Buffer.from(b).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
