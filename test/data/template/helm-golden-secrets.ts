/**
 * Helm golden cases for Sprig's password, cipher and TOML functions. Random output cannot be
 * recorded, so the cases check what is deterministic: derivePassword, lengths and prefixes,
 * and ciphertexts crossing over — one encrypted by Helm (decrypted by us) and one encrypted by
 * us with a seeded source (decrypted by Helm when the golden file is recorded).
 */
import { helmCase, type HelmCase } from "./helm-golden-support.js";

const HELM_CIPHERTEXT = "xFDqCqQ2X+zJDR/XHuLr9tqOb7DqOfNpEOJs1x+oqs3dLfC9ecA7fI8kBTOyxC+o6D7VZuZuvrLFa+iirhAcRQ==";
const OUR_CIPHERTEXT = "esZfOXx6GIE9WpgibFKucVzvp/kcVrPPIfQk0pTz6hM=";
const LONG_KEY = "a-very-long-password-longer-than-32-bytes!!";

const secrets: string[] = [
  "{{ derivePassword 1 \"long\" \"password\" \"user\" \"example.com\" }}", "{{ derivePassword 3 \"maximum\" \"pässword\" \"üser\" \"site\" }}",
  "{{ derivePassword 1 \"pin\" \"a\" \"b\" \"c\" }}|{{ derivePassword 2 \"short\" \"a\" \"b\" \"c\" }}|{{ derivePassword 7 \"basic\" \"a\" \"b\" \"c\" }}|{{ derivePassword 1 \"medium\" \"\" \"\" \"\" }}",
  "{{ derivePassword 1 \"nope\" \"a\" \"b\" \"c\" }}",
  `{{ decryptAES "${LONG_KEY}" "${HELM_CIPHERTEXT}" }}`, `{{ decryptAES "secretkey" "${OUR_CIPHERTEXT}" }}`, `{{ decryptAES "wrongkey" "${OUR_CIPHERTEXT}" | len | lt 100 }}`,
  "{{ encryptAES \"k\" \"round trip ✓\" | decryptAES \"k\" }}|{{ encryptAES \"k\" \"\" }}|{{ decryptAES \"k\" \"\" }}|{{ encryptAES \"k\" \"0123456789abcdef\" | len }}",
  "{{ decryptAES \"k\" \"abc\" }}", "{{ decryptAES \"k\" \"YWJj\" }}", "{{ decryptAES \"k\" \"MDEyMzQ1Njc4OTAxMjM0NWFi\" }}", "{{ decryptAES \"k\" \"MDEyMzQ1Njc4OTAxMjM0NQ==\" }}",
  "{{ bcrypt \"pw\" | len }}|{{ bcrypt \"pw\" | trunc 7 }}|{{ htpasswd \"user\" \"pw\" | trunc 12 }}|{{ htpasswd \"user\" \"pw\" | len }}|{{ htpasswd \"a:b\" \"x\" }}",
  "{{ bcrypt \"0123456789012345678901234567890123456789012345678901234567890123456789abc\" }}", "{{ ne (bcrypt \"x\") (bcrypt \"x\") }}",
  "{{ getHostByName \"example.com\" }}|",
];

const toml: string[] = [
  "{{ fromToml \"a = 1\\nb = 'x'\\nc = 1.5\\nd = true\\n[t]\\ne = [1, 2]\" | toJson }}", "{{ $t := fromToml \"n = 3\\nf = 2.0\" }}{{ printf \"%T %T\" $t.n $t.f }}",
  "{{ (fromToml \"[a.b]\\nc = 'deep'\").a.b.c }}", "{{ fromToml \"[[items]]\\nx = 1\\n[[items]]\\nx = 2\" | toJson }}", "{{ fromToml \"\" | toJson }}",
  "{{ fromToml \"a = = 1\" | keys }}", "{{ $t := fromToml \"d = 1979-05-27T07:32:00Z\" }}{{ $t.d.Unix }}", "{{ fromToml \"big = 9007199254740993\" | toJson }}",
  "{{ fromToml (toToml .Values.t) | toJson }}",
];

export const secretCases: HelmCase[] = [
  ...secrets.map((t) => helmCase(t)),
  ...toml.map((t) => helmCase(t, { t: { title: "x", n: 1, list: ["a", "b"], owner: { name: "n" } } })),
];
