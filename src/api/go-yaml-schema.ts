/**
 * The `yaml` library set up to read and write YAML as sigs.k8s.io/yaml does (see
 * go-yaml-scalars.ts): a custom schema whose implicit scalars are go-yaml v2's, explicit `!!int`,
 * `!!float`, `!!bool`, `!!null`, `!!timestamp`, `!!binary` tags checked the way v2 checks them, and
 * for output the core schema plus one rule: any string another reader could take for something
 * else is quoted.
 */
import type { CollectionTag, ParseOptions, DocumentOptions, SchemaOptions, ScalarTag, ToStringOptions } from "yaml";
import { needsQuotes, resolveGoScalar, type GoScalarKind } from "./go-yaml-scalars.js";

const TAG = "tag:yaml.org,2002:";

/** A `test` for the library: it only calls `.test(text)`, so a predicate does (and is exact). */
const predicate = (test: (text: string) => boolean): RegExp => ({ test }) as unknown as RegExp;

const IMPLICIT = new Set<GoScalarKind>(["null", "bool", "int", "uint", "float"]);

/** Untagged plain scalars: exactly go-yaml v2's `resolve("", text)`. */
const implicitScalar: ScalarTag = {
  tag: `${TAG}go-implicit`,
  default: true,
  test: predicate((text) => IMPLICIT.has(resolveGoScalar(text).kind)),
  resolve: (text) => resolveGoScalar(text).value,
};

const shortTag = (kind: GoScalarKind): string => `!!${kind === "uint" ? "int" : kind === "string" ? "str" : kind}`;

/**
 * `!!int 0x1F`, `!!float 1`, …: v2 resolves the text and fails unless it is of the tag's kind
 * (an int given `!!float` becomes a float; an unsigned one does not).
 */
function explicitTag(name: "int" | "float" | "bool" | "null" | "timestamp", kinds: readonly GoScalarKind[]): ScalarTag {
  return {
    tag: `${TAG}${name}`,
    resolve: (text, onError) => {
      const resolved = resolveGoScalar(text);
      if (kinds.includes(resolved.kind)) return resolved.value;
      onError(`cannot decode ${shortTag(resolved.kind)} \`${text}\` as a !!${name}`);
      return text;
    },
  };
}

/** `!!binary`: base64 decoded to a string (JSON then carries it as UTF-8, invalid bytes replaced). */
const binaryTag: ScalarTag = {
  tag: `${TAG}binary`,
  resolve: (text, onError) => {
    const compact = text.replace(/[\r\n]/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      onError("illegal base64 data in !!binary");
      return text;
    }
    return new TextDecoder().decode(Buffer.from(compact, "base64"));
  },
};

/** Added to the failsafe schema (map, seq, str). */
const goReadTags: (CollectionTag | ScalarTag)[] = [
  explicitTag("int", ["int", "uint"]),
  explicitTag("float", ["float", "int"]),
  explicitTag("bool", ["bool"]),
  explicitTag("null", ["null"]),
  explicitTag("timestamp", ["timestamp"]),
  binaryTag,
  implicitScalar,
];

/** Options of `parseAllDocuments`/`parseDocument` that read YAML as sigs.k8s.io/yaml does. */
export const GO_YAML_READ: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  schema: "failsafe",
  customTags: goReadTags,
  merge: true,
  // sigs.k8s.io/yaml.Unmarshal (not UnmarshalStrict): a key given twice, the last value wins.
  uniqueKeys: false,
};

/** Never picked for a value (no `identify`): its `test` makes the stringifier quote such strings. */
const quoteAmbiguous: ScalarTag = {
  tag: `${TAG}go-ambiguous`,
  default: true,
  test: predicate(needsQuotes),
  resolve: (text) => text,
};

/** Options of `stringify` whose output reads back identically in kubectl, Helm and YAML 1.2 tools. */
export const GO_YAML_WRITE: DocumentOptions & SchemaOptions & ToStringOptions = {
  schema: "core",
  customTags: [quoteAmbiguous],
  lineWidth: 0,
};
