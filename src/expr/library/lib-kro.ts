/**
 * kro's own libraries: random.seededString/seededInt (bit-for-bit v0.9, including the period-8
 * repetition of seededString, §12.16), json.marshal/unmarshal, hash.*, map merge/deepMerge,
 * lists.setAtIndex/insertAtIndex/removeAtIndex, and base64 (cel-go ext.Encoders).
 */
import { createHash } from "node:crypto";
import { celToJson, jsonToCel } from "../values.js";
import {
  LibraryError,
  declareNamespace,
  isCelMap,
  makeMap,
  mapEntries,
  toIndex,
  type CelEnvironment,
  type CelMap,
  type LibraryContext,
} from "../lib-support.js";

const ALPHANUMERIC = "0123456789abcdefghijklmnopqrstuvwxyz";

/** kro v0.9: 4-byte big-endian windows of ONE sha256 digest, so output repeats every 8 chars. */
export function seededString(length: bigint, seed: string): string {
  if (length <= 0n) throw new LibraryError("invalid_argument", "random.seededString length must be positive");
  const digest = createHash("sha256").update(seed, "utf8").digest();
  let out = "";
  for (let i = 0; i < Number(length); i++) {
    const start = (i * 4) % digest.length;
    out += ALPHANUMERIC.charAt(digest.readUInt32BE(start) % ALPHANUMERIC.length);
  }
  return out;
}

/** min + (first 8 digest bytes as uint64) mod (max-min), with Go's wrapping int64 arithmetic. */
export function seededInt(min: bigint, max: bigint, seed: string): bigint {
  if (min >= max) throw new LibraryError("invalid_argument", "random.seededInt min must be less than max");
  const v = createHash("sha256").update(seed, "utf8").digest().readBigUInt64BE(0);
  const range = BigInt.asUintN(64, max - min);
  return BigInt.asIntN(64, min + BigInt.asIntN(64, v % range));
}

export function fnv64a(data: Uint8Array): Uint8Array {
  let h = 0xcbf29ce484222325n;
  for (const b of data) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(h);
  return new Uint8Array(out);
}

function digest(alg: "sha256" | "md5", s: string): Uint8Array {
  return new Uint8Array(createHash(alg).update(s, "utf8").digest());
}

/** Recursive merge: maps merge key by key, anything else on the right replaces the left. */
export function deepMerge(left: CelMap, right: CelMap): CelMap {
  const merged = new Map<unknown, unknown>(mapEntries(left));
  for (const [k, v] of mapEntries(right)) {
    const prev = merged.get(k);
    merged.set(k, isCelMap(prev) && isCelMap(v) ? deepMerge(prev, v) : v);
  }
  return makeMap([...merged.entries()]);
}

export function registerKroLibraries(env: CelEnvironment, lib: LibraryContext, listsNamespace: string): void {
  const random = declareNamespace(env, "random");
  env.registerFunction(`${random}.seededString(int, string): string`, (_ns: unknown, n: bigint, seed: string) => {
    lib.charge(Number(n > 0n ? n : 0n));
    return seededString(n, seed);
  });
  env.registerFunction(
    `${random}.seededInt(int, int, string): int`,
    (_ns: unknown, min: bigint, max: bigint, seed: string) => seededInt(min, max, seed),
  );

  const json = declareNamespace(env, "json");
  env.registerFunction(`${json}.unmarshal(string): dyn`, (_ns: unknown, s: string) => {
    lib.charge(s.length);
    try {
      return jsonToCel(JSON.parse(s), undefined, { wholeNumbersAsInt: false });
    } catch (e) {
      throw new LibraryError("invalid_argument", `json.unmarshal: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  env.registerFunction(`${json}.marshal(dyn): string`, (_ns: unknown, v: unknown) => {
    const text = celToJsonText(v);
    lib.charge(text.length);
    return text;
  });

  const hash = declareNamespace(env, "hash");
  env.registerFunction(`${hash}.fnv64a(string): bytes`, (_ns: unknown, s: string) => fnv64a(Buffer.from(s, "utf8")));
  env.registerFunction(`${hash}.sha256(string): bytes`, (_ns: unknown, s: string) => {
    lib.charge(s.length);
    return digest("sha256", s);
  });
  env.registerFunction(`${hash}.md5(string): bytes`, (_ns: unknown, s: string) => {
    lib.charge(s.length);
    return digest("md5", s);
  });

  const base64 = declareNamespace(env, "base64");
  env.registerFunction(`${base64}.encode(bytes): string`, (_ns: unknown, b: Uint8Array) =>
    Buffer.from(b).toString("base64"),
  );
  env.registerFunction(`${base64}.decode(string): bytes`, (_ns: unknown, s: string) => {
    // cel-go accepts padded and unpadded standard base64 and rejects anything else.
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s))
      throw new LibraryError("invalid_argument", "base64.decode: illegal base64 data");
    return new Uint8Array(Buffer.from(s, "base64"));
  });

  // Object form: cel-js' signature strings cannot spell a generic map receiver.
  env.registerFunction({
    name: "merge",
    receiverType: "map<K, V>",
    returnType: "map<K, V>",
    params: [{ name: "other", type: "map<K, V>" }],
    handler: (a: CelMap, b: CelMap) => {
      lib.charge(mapEntries(a).length + mapEntries(b).length);
      return makeMap([...new Map([...mapEntries(a), ...mapEntries(b)]).entries()]);
    },
  });
  env.registerFunction("map.deepMerge(map): dyn", (a: CelMap, b: CelMap) => deepMerge(a, b));

  env.registerFunction(
    `${listsNamespace}.setAtIndex(list<A>, int, A): list<A>`,
    (_ns: unknown, l: unknown[], i: bigint, v: unknown) => {
      const out = [...l];
      out[toIndex(i, l.length, "lists.setAtIndex")] = v;
      return out;
    },
  );
  env.registerFunction(
    `${listsNamespace}.insertAtIndex(list<A>, int, A): list<A>`,
    (_ns: unknown, l: unknown[], i: bigint, v: unknown) => {
      const out = [...l];
      out.splice(toIndex(i, l.length, "lists.insertAtIndex", true), 0, v);
      return out;
    },
  );
  env.registerFunction(
    `${listsNamespace}.removeAtIndex(list<A>, int): list<A>`,
    (_ns: unknown, l: unknown[], i: bigint) => {
      const out = [...l];
      out.splice(toIndex(i, l.length, "lists.removeAtIndex"), 1);
      return out;
    },
  );
}

function celToJsonText(v: unknown): string {
  try {
    return celToJson(v).text;
  } catch (e) {
    throw new LibraryError("invalid_argument", `json.marshal: ${e instanceof Error ? e.message : String(e)}`);
  }
}
