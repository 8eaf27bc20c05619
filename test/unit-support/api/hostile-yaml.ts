// Shared by the loader's tests, the CLI's tests and the fuzz run.
import { YAML_ISSUE_CODES } from "../../../src/api/yaml-limits.js";

export interface HostileYaml {
  readonly text: string | Uint8Array;
  /** The one issue code the loader must report. */
  readonly code: string;
}

/** Hostile inputs of the kinds an attacker (or a broken generator) produces. */
export function hostileYaml(): Record<string, HostileYaml> {
  const bomb = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) bomb.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(",")}]`);
  let block = "root:\n";
  for (let i = 0; i < 3000; i++) block += `${"  ".repeat(i + 1)}k${i}:\n`;
  return {
    "alias bomb": { text: bomb.join("\n"), code: YAML_ISSUE_CODES.aliases },
    "flow nesting 3000 deep": { text: `x: ${"[".repeat(3000)}${"]".repeat(3000)}\n`, code: YAML_ISSUE_CODES.tooDeep },
    "flow maps 3000 deep": {
      text: `x: ${"{a: ".repeat(3000)}1${"}".repeat(3000)}\nnext: 1\n`,
      code: YAML_ISSUE_CODES.tooDeep,
    },
    "block nesting 3000 deep": { text: block, code: YAML_ISSUE_CODES.tooDeep },
    // Deep enough for the limit (200), shallow enough for the parser: only the depth check catches it.
    "nesting just over the limit": {
      text: `x: ${"[".repeat(205)}${"]".repeat(205)}\n`,
      code: YAML_ISSUE_CODES.tooDeep,
    },
    "non-UTF-8 bytes": {
      text: Uint8Array.from([...Buffer.from("a: 1\nb: x"), 0xff, 0xfe, 0x0a]),
      code: YAML_ISSUE_CODES.encoding,
    },
    "truncated UTF-8 sequence": {
      text: Uint8Array.from([...Buffer.from("a: "), 0xe2, 0x82]),
      code: YAML_ISSUE_CODES.encoding,
    },
  };
}
