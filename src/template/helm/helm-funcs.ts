/**
 * The functions Helm adds to Sprig (pkg/engine/funcs.go): YAML, JSON and TOML conversions, and
 * placeholders for include/tpl/required/lookup, which renderHelmTemplates binds per render.
 * Helm drops Sprig's env/expandenv; our Sprig never had them (templates read no environment).
 */
import {
  chargeParse,
  fromJson,
  FuncError,
  goFunc,
  isMap,
  jsonSyntaxError,
  marshalJson,
  toToml,
  toYaml,
  toYamlPretty,
  type FuncMap,
  type GoMap,
  type GoValue,
} from "../go/index.js";
import { fromYaml, fromYamlArray } from "./helm-yaml.js";
import { fromToml } from "./from-toml.js";

/** encoding/json's error for a JSON text that is not the wanted shape (or not JSON). */
function jsonProblem(
  text: string,
  want: "map[string]interface {}" | "[]interface {}",
): { value: unknown } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: jsonSyntaxError(text) || "unexpected end of JSON input" };
  }
  const kind = Array.isArray(parsed)
    ? "array"
    : typeof parsed === "string"
      ? "string"
      : typeof parsed === "number"
        ? "number"
        : typeof parsed === "boolean"
          ? "bool"
          : parsed === null
            ? "null"
            : "object";
  if (kind === "null") return { value: null };
  if ((want === "[]interface {}") !== (kind === "array") || (want !== "[]interface {}" && kind !== "object")) {
    return { error: `json: cannot unmarshal ${kind} into Go value of type ${want}` };
  }
  return { value: parsed };
}

const unsupported = (name: string): FuncMap[string] =>
  goFunc(
    [],
    () => {
      throw new FuncError(`${name} is bound by the Helm engine (renderHelmTemplates); it cannot run outside it`);
    },
    "any",
  );

export const helmFuncs: FuncMap = {
  toToml: goFunc(["any"], (v: GoValue) => toToml(v)),
  fromToml: goFunc(["string"], (s: string) => {
    chargeParse(s, "fromToml");
    return fromToml(s);
  }),
  toYaml: goFunc(["any"], (v: GoValue) => toYaml(v)),
  toYamlPretty: goFunc(["any"], (v: GoValue) => toYamlPretty(v)),
  fromYaml: goFunc(["string"], (s: string) => {
    chargeParse(s, "fromYaml");
    return fromYaml(s);
  }),
  fromYamlArray: goFunc(["string"], (s: string) => {
    chargeParse(s, "fromYamlArray");
    return fromYamlArray(s);
  }),
  toJson: goFunc(["any"], (v: GoValue) => marshalJson(v) ?? ""),
  fromJson: goFunc(["string"], (s: string): GoMap => {
    chargeParse(s, "fromJson");
    const r = jsonProblem(s, "map[string]interface {}");
    if ("error" in r) return { Error: r.error };
    const v = fromJson(r.value, "float64");
    return isMap(v) ? v : {};
  }),
  fromJsonArray: goFunc(["string"], (s: string): GoValue[] => {
    chargeParse(s, "fromJsonArray");
    const r = jsonProblem(s, "[]interface {}");
    if ("error" in r) return [r.error];
    const v = fromJson(r.value, "float64");
    return Array.isArray(v) ? (v as GoValue[]) : [];
  }),
  include: unsupported("include"),
  tpl: unsupported("tpl"),
  required: goFunc(["string", "any"], (warn: string, v: GoValue) => {
    if (v === null || v === "") throw new FuncError(warn);
    return v;
  }),
  lookup: goFunc(["string", "string", "string", "string"], () => ({})),
  getHostByName: goFunc(["string"], () => ""),
};
