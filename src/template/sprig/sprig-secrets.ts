/**
 * Sprig's password and symmetric-cipher functions (crypto.go): bcrypt, htpasswd (bcrypt, Go's
 * DefaultCost 10, "$2a$"), derivePassword (Master Password: scrypt + HMAC-SHA256), and
 * encryptAES/decryptAES (AES-256-CBC, the password zero-padded or cut to 32 bytes, a random IV
 * in front, PKCS#7 padding, base64). Salts and IVs come from the Entropy port, so a seeded
 * render is stable; the ciphertexts interoperate with Helm's both ways.
 */
import { createCipheriv, createDecipheriv, createHmac, scryptSync } from "node:crypto";
import { createRequire } from "node:module";
import type { Entropy } from "./entropy.js";
import { chargeWork, FuncError, goFunc, WORK_COSTS, type FuncMap } from "../go/index.js";

// Loaded on the first bcrypt call (CommonJS build): few renders hash passwords (startup cost).
const load = createRequire(import.meta.url);
let bcryptModule: typeof import("bcryptjs") | undefined;
const bcryptjs = (): typeof import("bcryptjs") => (bcryptModule ??= load("bcryptjs") as typeof import("bcryptjs"));

type GoIntArg = { value: bigint };
const utf8 = (s: string): Buffer => Buffer.from(s, "utf8");

/** Go's base64.StdEncoding.DecodeString (strict padding; \r and \n are skipped, as Go does). */
export function goBase64Decode(text: string): Buffer | string {
  const s = text.replace(/[\r\n]/g, "");
  if (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0) return Buffer.from(s, "base64");
  let i = 0;
  while (i < s.length && /[A-Za-z0-9+/]/.test(s[i] ?? "")) i++;
  const at = s.length % 4 !== 0 && i === s.length ? s.length - (s.length % 4) : i;
  return `illegal base64 data at input byte ${at}`;
}

function bcrypt(entropy: Entropy, password: string): string {
  // x/crypto/bcrypt refuses what it would silently truncate.
  if (utf8(password).length > 72)
    return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes";
  chargeWork(WORK_COSTS.bcrypt, "a bcrypt hash");
  const salt = new Uint8Array(16);
  entropy.read(salt);
  return bcryptjs().hashSync(password, `$2a$10$${bcryptjs().encodeBase64(salt, 16)}`);
}

const PASSWORD_TEMPLATES: Readonly<Record<string, readonly string[]>> = {
  maximum: ["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
  long: [
    "CvcvnoCvcvCvcv",
    "CvcvCvcvnoCvcv",
    "CvcvCvcvCvcvno",
    "CvccnoCvcvCvcv",
    "CvccCvcvnoCvcv",
    "CvccCvcvCvcvno",
    "CvcvnoCvccCvcv",
    "CvcvCvccnoCvcv",
    "CvcvCvccCvcvno",
    "CvcvnoCvcvCvcc",
    "CvcvCvcvnoCvcc",
    "CvcvCvcvCvccno",
    "CvccnoCvccCvcv",
    "CvccCvccnoCvcv",
    "CvccCvccCvcvno",
    "CvcvnoCvccCvcc",
    "CvcvCvccnoCvcc",
    "CvcvCvccCvccno",
    "CvccnoCvcvCvcc",
    "CvccCvcvnoCvcc",
    "CvccCvcvCvccno",
  ],
  medium: ["CvcnoCvc", "CvcCvcno"],
  short: ["Cvcn"],
  basic: ["aaanaaan", "aannaaan", "aaannaaa"],
  pin: ["nnnn"],
};
const TEMPLATE_CHARACTERS: Readonly<Record<string, string>> = {
  V: "AEIOU",
  C: "BCDFGHJKLMNPQRSTVWXYZ",
  v: "aeiou",
  c: "bcdfghjklmnpqrstvwxyz",
  A: "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
  a: "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
  n: "0123456789",
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
};
const SEED = "com.lyndir.masterpassword";
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** Master Password's site password: deterministic, no entropy. */
export function derivePassword(counter: bigint, type: string, password: string, user: string, site: string): string {
  const templates = PASSWORD_TEMPLATES[type];
  if (templates === undefined) return `cannot find password template ${type}`;
  chargeWork(WORK_COSTS.derivePassword, "derivePassword (scrypt)");
  const salt = Buffer.concat([utf8(SEED), u32(utf8(user).length), utf8(user)]);
  const key = scryptSync(utf8(password), salt, 64, { N: 32768, r: 8, p: 2, maxmem: 128 * 1024 * 1024 });
  const message = Buffer.concat([
    utf8(SEED),
    u32(utf8(site).length),
    utf8(site),
    u32(Number(BigInt.asUintN(32, counter))),
  ]);
  const seed = createHmac("sha256", key).update(message).digest();
  const template = templates[(seed[0] ?? 0) % templates.length] ?? "";
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const chars = TEMPLATE_CHARACTERS[template[i] ?? ""] ?? "";
    out += chars[(seed[i + 1] ?? 0) % chars.length] ?? "";
  }
  return out;
}

const aesKey = (password: string): Buffer => {
  const key = Buffer.alloc(32);
  utf8(password).copy(key, 0, 0, 32);
  return key;
};

function encryptAES(entropy: Entropy, password: string, plaintext: string): string {
  if (plaintext === "") return "";
  const iv = Buffer.alloc(16);
  entropy.read(iv);
  const cipher = createCipheriv("aes-256-cbc", aesKey(password), iv);
  return Buffer.concat([iv, cipher.update(utf8(plaintext)), cipher.final()]).toString("base64");
}

/** Sprig's decryptAES, panics included (text/template reports them as errors): no padding check, like Sprig. */
function decryptAES(password: string, crypt64: string): string {
  if (crypt64 === "") return "";
  const crypt = goBase64Decode(crypt64);
  if (typeof crypt === "string") throw new FuncError(crypt);
  if (crypt.length < 16)
    throw new FuncError(`runtime error: slice bounds out of range [:16] with capacity ${crypt.length}`);
  const body = crypt.subarray(16);
  if (body.length % 16 !== 0) throw new FuncError("crypto/cipher: input not full blocks");
  if (body.length === 0) throw new FuncError("runtime error: index out of range [-1]");
  const decipher = createDecipheriv("aes-256-cbc", aesKey(password), crypt.subarray(0, 16)).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(body), decipher.final()]);
  const cut = plain.length - (plain[plain.length - 1] ?? 0);
  if (cut < 0) throw new FuncError(`runtime error: slice bounds out of range [:${cut}]`);
  return plain.subarray(0, cut).toString("utf8");
}

export function secretFuncs(entropy: Entropy): FuncMap {
  return {
    bcrypt: goFunc(["string"], (s: string) => bcrypt(entropy, s)),
    htpasswd: goFunc(["string", "string"], (user: string, password: string) =>
      user.includes(":") ? `invalid username: ${user}` : `${user}:${bcrypt(entropy, password)}`,
    ),
    encryptAES: goFunc(["string", "string"], (password: string, plaintext: string) =>
      encryptAES(entropy, password, plaintext),
    ),
  };
}

/** The ones that need no entropy. */
export const secretPureFuncs: FuncMap = {
  derivePassword: goFunc(
    ["int", "string", "string", "string", "string"],
    (c: GoIntArg, type: string, password: string, user: string, site: string) =>
      derivePassword(c.value, type, password, user, site),
  ),
  decryptAES: goFunc(["string", "string"], decryptAES),
};
