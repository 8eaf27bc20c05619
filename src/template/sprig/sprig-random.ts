/**
 * Sprig's random functions (functions.go, crypto.go): randAlphaNum, randAlpha, randNumeric,
 * randAscii, randInt, randBytes, shuffle and uuidv4, bound to an Entropy source (see entropy.ts):
 * the system's for `kro render`, a seeded stream per instance generation in the controller.
 */
import { uniformIndex, uniformInt, uuidV4, type Entropy } from "./entropy.js";
import { chargeWork, FuncError, goFunc, int, WORK_COSTS, type FuncMap } from "../go/index.js";

type GoIntArg = { value: bigint };

const ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");

/** Beyond the 4 MiB a render may output anyway: fail early instead of looping for ever. */
const MAX_COUNT = 4n * 1024n * 1024n;
function checkCount(name: string, count: bigint): void {
  if (count > MAX_COUNT) throw new FuncError(`${name}: count ${count} is larger than a render may output`);
}

function randomFrom(entropy: Entropy, alphabet: string, count: bigint): string {
  checkCount("random string", count);
  chargeWork(Number(count) * WORK_COSTS.randomDraw, () => `a random string of ${count} characters`);
  let out = "";
  for (let i = 0n; i < count; i++) out += alphabet.charAt(uniformIndex(entropy, alphabet.length));
  return out;
}

export function randomFuncs(entropy: Entropy): FuncMap {
  return {
    randAlphaNum: goFunc(["int"], (c: GoIntArg) => randomFrom(entropy, ALPHA + DIGITS, c.value)),
    randAlpha: goFunc(["int"], (c: GoIntArg) => randomFrom(entropy, ALPHA, c.value)),
    randNumeric: goFunc(["int"], (c: GoIntArg) => randomFrom(entropy, DIGITS, c.value)),
    randAscii: goFunc(["int"], (c: GoIntArg) => randomFrom(entropy, ASCII, c.value)),
    // math/rand's Intn panics on n <= 0; text/template reports the panic as an error.
    randInt: goFunc(["int", "int"], (a: GoIntArg, b: GoIntArg) => {
      if (b.value - a.value <= 0n) throw new FuncError("invalid argument to Intn");
      return int(a.value + uniformInt(entropy, b.value - a.value));
    }),
    randBytes: goFunc(["int"], (c: GoIntArg) => {
      checkCount("randBytes", c.value);
      const out = new Uint8Array(Math.max(0, Number(c.value)));
      entropy.read(out);
      return Buffer.from(out).toString("base64");
    }),
    shuffle: goFunc(["string"], (s: string) => {
      chargeWork(s.length * WORK_COSTS.randomDraw, () => `shuffle of ${s.length} characters`);
      const rs = Array.from(s);
      for (let i = rs.length - 1; i > 0; i--) {
        const j = uniformIndex(entropy, i + 1);
        [rs[i], rs[j]] = [rs[j] ?? "", rs[i] ?? ""];
      }
      return rs.join("");
    }),
    uuidv4: goFunc([], () => uuidV4(entropy)),
  };
}
